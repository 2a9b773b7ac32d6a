import { drawChartPng } from '../charts/chart-pool.js'
import type { EventLog, JsonObject } from '../eventlog/port.js'
import { handleCommand, type CommandContext, type CommandResult } from '../kernel/handle-command.js'
import { newEventId } from '../kernel/ids.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { AttemptOutcome } from '../subscriptions/delivery-decider.js'
import { subscriptionDecider, type SubscriptionCommand } from '../subscriptions/decider.js'
import { subscriptionStream, type DeliveryTarget, type SubscriptionEvent } from '../subscriptions/events.js'
import type { Subscription } from '../subscriptions/state.js'
import { buildReport, type Report } from './report.js'
import { insightReport, MAX_DELIVERED_INSIGHTS } from './insight-reports.js'
import { queriedInsightResults } from '../insights/query/insight-results.js'
import type { InsightResults } from '../insights/results.js'
import { deliveryTarget, sendReport, type Channels } from './targets.js'
import { webhookSecretOf } from './webhook-secret.js'
import { isPublicUrl } from './addresses.js'
import { exportPictureLink } from './picture-links.js'
import { drawPictures, type Picture, type PictureLink, type RenderPicture } from './pictures.js'

export interface DeliveryDeps {
  readonly log: EventLog
  readonly models: ReadModels
  readonly channels: Channels
  /** Where users open Hedgelog's pages; links in deliveries start with it. */
  readonly publicUrl: string
  readonly clock: () => Date
  /** Runs the delivered insights' queries; by default the query service over the read models. */
  readonly insightResults?: InsightResults
  /** Draws the insights' pictures; by default the charts' PNG renderer, null for deliveries without pictures. */
  readonly renderPicture?: RenderPicture | null
  /** Makes public links to pictures, for Slack's image blocks and webhooks' `picture_url`; by default signed links to PNG exports; null for none. */
  readonly pictureLink?: PictureLink | null
}

export const schedulerContext = (now: Date): CommandContext => ({ actor: 'scheduler', now: now.toISOString(), correlationId: newEventId() })

export const runSubscriptionCommand = (
  log: EventLog, subscriptionId: number, command: SubscriptionCommand, context: CommandContext,
): Promise<CommandResult<Subscription | null, SubscriptionEvent>> =>
  handleCommand(log, subscriptionDecider, subscriptionStream(subscriptionId), command, context)

/** The report of a subscription's dashboard or insight, or why there is none to send. */
export const reportFor = async (
  deps: DeliveryDeps, subscription: Subscription, occurrence: string | null, sentAt: Date,
): Promise<Report | { refused: string }> => {
  const environment = await deps.models.get('environments', String(subscription.environment_id))
  if (!environment) return { refused: `environment ${subscription.environment_id} no longer exists` }
  const results = deps.insightResults ?? queriedInsightResults(deps.models)
  const base = deps.publicUrl.replace(/\/+$/, '')
  if (subscription.insight !== null) {
    const insight = await deps.models.get('insights', String(subscription.insight))
    if (!insight || insight.deleted || insight.environment_id !== subscription.environment_id) {
      return { refused: `insight ${subscription.insight} no longer exists` }
    }
    return buildReport(subscription, { insight: await insightReport(insight, environment, results, base) }, deps.publicUrl, occurrence, sentAt.toISOString())
  }
  if (subscription.dashboard === null) return { refused: 'the subscription names no dashboard or insight' }
  const dashboard = await deps.models.get('dashboards', String(subscription.dashboard))
  if (!dashboard || dashboard.deleted || dashboard.environment_id !== subscription.environment_id) {
    return { refused: `dashboard ${subscription.dashboard} no longer exists` }
  }
  const insights = []
  let insightCount = 0
  for (const tile of dashboard.tiles) {
    if (tile.deleted || typeof tile.insight !== 'number') continue
    const insight = await deps.models.get('insights', String(tile.insight))
    if (!insight || insight.deleted) continue
    insightCount++
    // Past the first six, the insights are only counted, for the note on how many were left out.
    if (insights.length < MAX_DELIVERED_INSIGHTS) insights.push(await insightReport(insight, environment, results, base))
  }
  return buildReport(subscription, { dashboard, insights, insightCount }, deps.publicUrl, occurrence, sentAt.toISOString())
}

/** Builds and sends one delivery of `subscription`; never throws for what the target does. */
export const attemptDelivery = async (
  deps: DeliveryDeps, subscription: Subscription, occurrence: string | null, context: CommandContext,
): Promise<{ outcome: AttemptOutcome; target: DeliveryTarget }> => {
  const report = await reportFor(deps, subscription, occurrence, deps.clock())
  if ('refused' in report) return { outcome: { status: 'refused', reason: report.refused }, target: deliveryTarget(subscription) }
  const environment = await deps.models.get('environments', String(subscription.environment_id))
  const settings = (environment?.['settings'] ?? {}) as JsonObject
  const slackWebhook = typeof settings['slack_incoming_webhook'] === 'string' ? settings['slack_incoming_webhook'] : null
  const webhookSecret = subscription.target_type === 'webhook' ? await webhookSecretOf(deps.log, subscription.environment_id, context) : ''
  const link = deps.pictureLink !== undefined ? deps.pictureLink
    : environment ? exportPictureLink({ ...deps, insightResults: deps.insightResults ?? queriedInsightResults(deps.models) }, environment, context) : null
  const pictures = await picturesFor(deps, link, report, subscription.target_type, slackWebhook !== null || deps.channels.slackBot !== undefined)
  return sendReport(report, subscription, { webhookSecret, slackWebhook }, deps.channels, pictures)
}

/**
 * The pictures a delivery to `targetType` carries: e-mail shows them inline and needs no links;
 * Slack shows them only from links it can fetch, so only when `publicUrl` is reachable from
 * the internet and links can be made; webhooks get links when they can be made. No pictures
 * are drawn that the target would not carry.
 */
const picturesFor = async (
  deps: DeliveryDeps, link: PictureLink | null, report: Report, targetType: string, reachesSlack: boolean,
): Promise<(Picture | null)[]> => {
  const render = deps.renderPicture === undefined ? drawChartPng : deps.renderPicture
  if (!render || report.insights.length === 0) return []
  const options = { render, log: deps.channels.log }
  // Without a mail server the attempt is refused before anything is sent: nothing to draw for.
  if (targetType === 'email') return deps.channels.mailer ? drawPictures(report.insights, { ...options, link: null }) : []
  if (!link) return []
  if (targetType === 'webhook') return drawPictures(report.insights, { ...options, link })
  if (targetType === 'slack' && reachesSlack && isPublicUrl(deps.publicUrl)) return drawPictures(report.insights, { ...options, link })
  return []
}
