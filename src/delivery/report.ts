import type { Dashboard } from '../dashboards/state.js'
import { tableText } from '../insights/result-table.js'
import type { Subscription } from '../subscriptions/state.js'
import { subscriptionSummary } from '../subscriptions/summary.js'
import type { InsightReport } from './insight-reports.js'

/** What every delivery of a subscription says, whatever its target. */
export interface Report {
  readonly subscription: { readonly id: number; readonly title: string | null; readonly summary: string }
  /** The subscribed dashboard, with its text cards; null when the subscription is to an insight. */
  readonly dashboard: {
    readonly id: number
    readonly name: string
    readonly url: string
    /** The public view's address, when sharing is on. */
    readonly shared_url: string | null
    readonly tiles: readonly { readonly id: number; readonly text: string }[]
  } | null
  /** The subscribed insight; null when the subscription is to a dashboard. */
  readonly insight: InsightReport | null
  /** The insights delivered with their results: a dashboard's first six, or the subscribed one. */
  readonly insights: readonly InsightReport[]
  /** How many insights the dashboard holds, of which `insights` are the first; 1 for an insight's subscription. */
  readonly insight_count: number
  /** The subscription's page, where it is changed or stopped. */
  readonly manage_url: string
  /** The scheduled time this delivery stands for; null for a test delivery. */
  readonly occurrence: string | null
  readonly sent_at: string
}

const TILE_TEXT_LIMIT = 280

const tileText = (body: string): string => (body.length > TILE_TEXT_LIMIT ? `${body.slice(0, TILE_TEXT_LIMIT - 1)}…` : body)

/** What a delivery reports on: a dashboard with the reports of its insights, or one insight. */
export type ReportSubject =
  | { readonly dashboard: Dashboard; readonly insights: readonly InsightReport[]; readonly insightCount?: number }
  | { readonly insight: InsightReport }

/** The report of one delivery; `publicUrl` is where users open Hedgelog's pages (`HEDGELOG_PUBLIC_URL`). */
export const buildReport = (
  subscription: Subscription, subject: ReportSubject, publicUrl: string, occurrence: string | null, sentAt: string,
): Report => {
  const base = publicUrl.replace(/\/+$/, '')
  const common = { subscription: { id: subscription.id, title: subscription.title, summary: subscriptionSummary(subscription) }, occurrence, sent_at: sentAt }
  if ('insight' in subject) {
    return {
      ...common, dashboard: null, insight: subject.insight, insights: [subject.insight], insight_count: 1,
      manage_url: `${base}/project/${subscription.environment_id}/insights/${subject.insight.short_id}/subscriptions/${subscription.id}`,
    }
  }
  const { dashboard } = subject
  return {
    ...common,
    insight_count: Math.max(subject.insightCount ?? 0, subject.insights.length),
    manage_url: `${base}/project/${dashboard.environment_id}/dashboard/${dashboard.id}/subscriptions/${subscription.id}`,
    dashboard: {
      id: dashboard.id,
      name: dashboard.name ?? 'Untitled',
      url: `${base}/project/${dashboard.environment_id}/dashboard/${dashboard.id}`,
      shared_url: dashboard.sharing.enabled ? `${base}/shared/${dashboard.sharing.access_token}` : null,
      tiles: dashboard.tiles.filter((tile) => !tile.deleted && tile.text).map((tile) => ({ id: tile.id, text: tileText(tile.text?.body ?? '') })),
    },
    insight: null,
    insights: subject.insights,
  }
}

/** What the report is about: its name, kind, address and public view. */
export const reportTarget = (report: Report): { kind: 'dashboard' | 'insight'; name: string; url: string; shared_url: string | null } =>
  report.dashboard
    ? { kind: 'dashboard', name: report.dashboard.name, url: report.dashboard.url, shared_url: report.dashboard.shared_url }
    : { kind: 'insight', name: report.insight!.name, url: report.insight!.url, shared_url: null }

/** How a text report sets out tables: indented in e-mail, in a code block in Slack (whose text is not monospaced). */
export type TextStyle = 'mail' | 'slack'

/** An insight's lines in a text report: its name, then its result as a table, or why there is none. */
const insightLines = (insight: InsightReport, style: TextStyle): string[] => {
  const table = insight.table ? tableText(insight.table).split('\n') : null
  const body = table === null ? [`    ${insight.error ?? 'No results yet.'}`]
    : style === 'slack' ? ['```', ...table, '```'] : table.map((line) => `    ${line}`)
  return [insight.name, ...body, style === 'slack' ? insight.url : `    ${insight.url}`, '']
}

/** What a delivery calls itself: the subscription's title, or the name of what it reports on. */
export const heading = (report: Report): string => report.subscription.title ?? reportTarget(report).name

/** The plain-text body of e-mail and Slack. */
export const reportText = (report: Report, style: TextStyle = 'mail'): string => {
  const target = reportTarget(report)
  const cards = report.dashboard?.tiles ?? []
  const lines = [
    `${heading(report)}: ${target.kind} "${target.name}", ${report.subscription.summary}.`,
    '',
    ...report.insights.flatMap((insight) => insightLines(insight, style)),
    ...cards.map((tile) => `- ${tile.text || `tile ${tile.id}`}`),
    ...(report.dashboard && cards.length === 0 && report.insights.length === 0 ? ['This dashboard has no tiles.'] : []),
    ...(cards.length > 0 ? [''] : []),
    `Open it: ${target.url}`,
    ...(target.shared_url ? [`Shared view: ${target.shared_url}`] : []),
  ]
  return lines.join('\n')
}

export const reportSubject = (report: Report): string => `${heading(report)}: ${reportTarget(report).name}`
