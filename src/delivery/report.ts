import type { Dashboard } from '../dashboards/state.js'
import type { Subscription } from '../subscriptions/state.js'
import { subscriptionSummary } from '../subscriptions/summary.js'

/** What every delivery of a subscription says, whatever its target. */
export interface Report {
  readonly subscription: { readonly id: number; readonly title: string | null; readonly summary: string }
  readonly dashboard: {
    readonly id: number
    readonly name: string
    readonly url: string
    /** The public view's address, when sharing is on. */
    readonly shared_url: string | null
    readonly tiles: readonly { readonly id: number; readonly text: string }[]
  }
  /** The scheduled time this delivery stands for; null for a test delivery. */
  readonly occurrence: string | null
  readonly sent_at: string
}

const TILE_TEXT_LIMIT = 280

const tileText = (body: string): string => (body.length > TILE_TEXT_LIMIT ? `${body.slice(0, TILE_TEXT_LIMIT - 1)}…` : body)

/** The report of one delivery; `publicUrl` is where users open Hedgelog's pages (`HEDGELOG_PUBLIC_URL`). */
export const buildReport = (
  subscription: Subscription, dashboard: Dashboard, publicUrl: string, occurrence: string | null, sentAt: string,
): Report => {
  const base = publicUrl.replace(/\/+$/, '')
  return {
    subscription: { id: subscription.id, title: subscription.title, summary: subscriptionSummary(subscription) },
    dashboard: {
      id: dashboard.id,
      name: dashboard.name ?? 'Untitled',
      url: `${base}/project/${dashboard.environment_id}/dashboard/${dashboard.id}`,
      shared_url: dashboard.sharing.enabled ? `${base}/shared/${dashboard.sharing.access_token}` : null,
      tiles: dashboard.tiles.filter((tile) => !tile.deleted).map((tile) => ({ id: tile.id, text: tileText(tile.text?.body ?? '') })),
    },
    occurrence,
    sent_at: sentAt,
  }
}

const heading = (report: Report): string => report.subscription.title ?? report.dashboard.name

/** The plain-text body shared by e-mail and Slack. */
export const reportText = (report: Report): string => {
  const { dashboard } = report
  const lines = [
    `${heading(report)}: dashboard "${dashboard.name}", ${report.subscription.summary}.`,
    '',
    ...(dashboard.tiles.length === 0 ? ['This dashboard has no tiles.'] : dashboard.tiles.map((tile) => `- ${tile.text || `tile ${tile.id}`}`)),
    '',
    `Open it: ${dashboard.url}`,
    ...(dashboard.shared_url ? [`Shared view: ${dashboard.shared_url}`] : []),
  ]
  return lines.join('\n')
}

export const reportSubject = (report: Report): string => `${heading(report)}: ${report.dashboard.name}`
