import { DEFAULT_CHART_SIZE } from '../charts/chart-input.js'
import type { Mail, MailAttachment, Mailer } from '../mail/mailer.js'
import type { DeliveryTarget } from '../subscriptions/events.js'
import type { AttemptOutcome } from '../subscriptions/delivery-decider.js'
import type { Subscription } from '../subscriptions/state.js'
import { OutboundFailed, OutboundRefused } from './outbound.js'
import type { InsightReport } from './insight-reports.js'
import type { Picture } from './pictures.js'
import { reportSubject, reportTarget, reportText, type Report } from './report.js'
import { reportHtml, type InlinePicture } from './report-html.js'
import { signatureHeader } from './signature.js'
import { slackMessages } from './slack-message.js'

/** How a delivery leaves the process: a JSON POST (refusing addresses not allowed) and, when configured, SMTP. */
export interface Channels {
  /** POSTs JSON; resolves with the answer's body. */
  post(url: string, body: string, headers: Readonly<Record<string, string>>): Promise<string>
  readonly mailer: Mailer | undefined
  readonly log: (fields: Record<string, unknown>, message: string) => void
  /** Slack deliveries post as this bot when it is set, replying in threads; otherwise through the environment's incoming webhook. */
  readonly slackBot?: SlackBot
}

/** A Slack app's bot token (`xoxb-…`), and the Web API it calls (`https://slack.com/api`). */
export interface SlackBot {
  readonly token: string
  readonly apiUrl: string
}

/** What a target needs of its environment. */
export interface EnvironmentFacts {
  readonly webhookSecret: string
  readonly slackWebhook: string | null
}

export const emailsOf = (targetValue: string): string[] =>
  targetValue.split(',').map((email) => email.trim()).filter((email) => email !== '')

export const deliveryTarget = (subscription: Subscription): DeliveryTarget => ({
  target_type: subscription.target_type,
  target_value: subscription.target_value,
  recipients: subscription.target_type === 'email' ? emailsOf(subscription.target_value) : [],
})

const reasonOf = (error: unknown): string => (error instanceof Error && 'reason' in error ? String(error.reason) : String(error))

const outcomeOf = (error: unknown): AttemptOutcome =>
  error instanceof OutboundRefused ? { status: 'refused', reason: reasonOf(error) } : { status: 'failed', reason: reasonOf(error) }

const postOutcome = async (send: () => Promise<unknown>): Promise<AttemptOutcome> => {
  try {
    await send()
    return { status: 'delivered' }
  } catch (error) {
    return outcomeOf(error)
  }
}

/**
 * E-mail goes to each recipient as a message of its own. An attempt counts as delivered when any
 * recipient's server accepted it; those that refused are logged, and a retry would send the report
 * again to everyone, so a partial failure is not retried.
 */
const sendMails = async (mails: readonly Mail[], channels: Channels): Promise<{ outcome: AttemptOutcome; sent: string[] }> => {
  const { mailer } = channels
  if (!mailer) return { outcome: { status: 'refused', reason: 'e-mail is not configured: set HEDGELOG_SMTP_URL' }, sent: [] }
  if (mails.length === 0) return { outcome: { status: 'refused', reason: 'the subscription has no e-mail recipients' }, sent: [] }
  const sent: string[] = []
  let lastError = ''
  for (const mail of mails) {
    try {
      await mailer.send(mail)
      sent.push(mail.to)
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error)
      channels.log({ recipient: mail.to, err: lastError }, 'a subscription e-mail could not be sent')
    }
  }
  if (sent.length > 0) return { outcome: { status: 'delivered' }, sent }
  return { outcome: { status: 'failed', reason: `no recipient's server accepted the e-mail: ${lastError}`.slice(0, 500) }, sent }
}

/** A PNG's width and height, from its IHDR chunk; null when `png` is not a PNG. */
const pngSize = (png: Buffer): { width: number; height: number } | null => {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  if (png.length < 24 || !png.subarray(0, 8).equals(signature) || png.toString('latin1', 12, 16) !== 'IHDR') return null
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}

const fileName = (name: string): string => `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'insight'}.png`

/** The report as one e-mail's content: the HTML body with each picture inline (by `cid`), the plain text as its alternative. */
const reportMail = (report: Report, pictures: readonly (Picture | null)[]): Omit<Mail, 'to'> => {
  const attachments: MailAttachment[] = []
  const inline = report.insights.map((insight, i): InlinePicture | null => {
    const picture = pictures[i]
    if (!picture) return null
    const cid = `insight-${i + 1}-${insight.id}@hedgelog`
    attachments.push({ cid, filename: fileName(insight.name), content: picture.png, contentType: 'image/png' })
    // A picture drawn at a larger scale is shown at the size of a chart, sharp on dense screens.
    return { cid, width: Math.min(pngSize(picture.png)?.width ?? DEFAULT_CHART_SIZE.width, DEFAULT_CHART_SIZE.width) }
  })
  return { subject: reportSubject(report), text: reportText(report), html: reportHtml(report, inline), attachments }
}

/** An insight in a webhook's body: its fields as documented, and its picture's link when one was made. */
const webhookInsight = (insight: InsightReport, picture: Picture | null | undefined) => ({
  id: insight.id, short_id: insight.short_id, name: insight.name, url: insight.url, kind: insight.kind,
  last_refresh: insight.last_refresh, result: insight.result, table: insight.table, error: insight.error,
  ...(picture?.url ? { picture_url: picture.url } : {}),
})

/** The JSON a webhook receives. */
const webhookBody = (report: Report, pictures: readonly (Picture | null)[]): string => {
  const insights = report.insights.map((insight, i) => webhookInsight(insight, pictures[i]))
  return JSON.stringify({
    type: 'subscription.delivery',
    subscription: report.subscription,
    dashboard: report.dashboard,
    insight: report.insight ? insights[0]! : null,
    insights,
    occurrence: report.occurrence,
    sent_at: report.sent_at,
  })
}

/**
 * Slack through the environment's incoming webhook. With no picture links, one text message as
 * always. With them, the main message (blocks, the text as fallback) and then each further
 * insight and the note on insights left out as messages of their own: an incoming webhook
 * cannot reply in a thread, as PostHog's bot does. The attempt stands or falls with the main
 * message; a follow-up that fails is logged, since a retry would post the main message again.
 */
const sendSlack = async (
  report: Report, channel: string, webhook: string, pictures: readonly (Picture | null)[], channels: Channels,
): Promise<AttemptOutcome> => {
  const text = reportText(report, 'slack')
  if (!pictures.some((picture) => picture?.url)) {
    return postOutcome(() => channels.post(webhook, JSON.stringify({ channel, text, unfurl_links: false }), {}))
  }
  const { main, followUps } = slackMessages(report, pictures, text)
  const outcome = await postOutcome(() => channels.post(webhook, JSON.stringify({ channel, ...main, unfurl_links: false }), {}))
  if (outcome.status !== 'delivered') return outcome
  for (const message of followUps) {
    await channels.post(webhook, JSON.stringify({ channel, ...message, unfurl_links: false }), {}).catch((error: unknown) =>
      channels.log({ channel, err: reasonOf(error) }, 'a follow-up Slack message of a delivery could not be posted'))
  }
  return outcome
}

/** Slack's Web API refuses these for good: a retry cannot help. */
const SLACK_REFUSALS = new Set(['channel_not_found', 'not_in_channel', 'invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'is_archived', 'invalid_blocks'])

/** Posts one message with `chat.postMessage`; resolves with its channel and timestamp, which thread replies name. */
const postAsBot = async (bot: SlackBot, message: object, channels: Channels): Promise<{ channel: string; ts: string }> => {
  const answer = await channels.post(`${bot.apiUrl.replace(/\/+$/, '')}/chat.postMessage`, JSON.stringify(message), {
    authorization: `Bearer ${bot.token}`,
  })
  let parsed: { ok?: unknown; error?: unknown; ts?: unknown; channel?: unknown }
  try {
    parsed = JSON.parse(answer) as typeof parsed
  } catch {
    throw new OutboundFailed('Slack answered something other than JSON')
  }
  if (parsed.ok !== true || typeof parsed.ts !== 'string' || typeof parsed.channel !== 'string') {
    const error = typeof parsed.error === 'string' ? parsed.error : 'no timestamp'
    throw SLACK_REFUSALS.has(error) ? new OutboundRefused(`Slack refused the message: ${error}`) : new OutboundFailed(`Slack did not post the message: ${error}`)
  }
  return { channel: parsed.channel, ts: parsed.ts }
}

/**
 * Slack as a bot, as PostHog's Slack app posts: the main message in the subscription's channel
 * (the part of the target before `|`), and with pictures each further insight and the note on
 * insights left out as replies in its thread. The attempt stands or falls with the main message;
 * a reply that fails is logged, since a retry would post the main message again.
 */
const sendSlackAsBot = async (
  report: Report, target: string, bot: SlackBot, pictures: readonly (Picture | null)[], channels: Channels,
): Promise<AttemptOutcome> => {
  const channel = target.split('|')[0]!.trim()
  const text = reportText(report, 'slack')
  const withPictures = pictures.some((picture) => picture?.url)
  const { main, followUps } = withPictures ? slackMessages(report, pictures, text, true) : { main: { text }, followUps: [] }
  let posted: { channel: string; ts: string }
  try {
    posted = await postAsBot(bot, { channel, ...main, unfurl_links: false }, channels)
  } catch (error) {
    return outcomeOf(error)
  }
  for (const message of followUps) {
    await postAsBot(bot, { channel: posted.channel, thread_ts: posted.ts, ...message, unfurl_links: false }, channels).catch((error: unknown) =>
      channels.log({ channel, err: reasonOf(error) }, 'a reply in the thread of a Slack delivery could not be posted'))
  }
  return { status: 'delivered' }
}

/**
 * Sends one report to the subscription's target; answers the outcome and where it went.
 * `pictures` are the insights' pictures in the order of `report.insights` (null or missing: none).
 */
export const sendReport = async (
  report: Report, subscription: Subscription, environment: EnvironmentFacts, channels: Channels, pictures: readonly (Picture | null)[] = [],
): Promise<{ outcome: AttemptOutcome; target: DeliveryTarget }> => {
  const target = deliveryTarget(subscription)
  switch (subscription.target_type) {
    case 'webhook': {
      const body = webhookBody(report, pictures)
      const headers = { 'x-hedgelog-signature': signatureHeader(environment.webhookSecret, body, new Date(report.sent_at)) }
      return { outcome: await postOutcome(() => channels.post(subscription.target_value, body, headers)), target }
    }
    case 'slack': {
      if (channels.slackBot) return { outcome: await sendSlackAsBot(report, subscription.target_value, channels.slackBot, pictures, channels), target }
      if (!environment.slackWebhook) {
        return { outcome: { status: 'refused', reason: 'no Slack bot is configured (HEDGELOG_SLACK_BOT_TOKEN) and the environment has no Slack incoming webhook (slack_incoming_webhook)' }, target }
      }
      return { outcome: await sendSlack(report, subscription.target_value, environment.slackWebhook, pictures, channels), target }
    }
    case 'email': {
      const content = reportMail(report, pictures)
      const mails = target.recipients.map((to) => ({ to, ...content }))
      const { outcome, sent } = await sendMails(mails, channels)
      return { outcome, target: { ...target, recipients: outcome.status === 'delivered' ? sent : target.recipients } }
    }
    default:
      return { outcome: { status: 'refused', reason: `unknown target type ${JSON.stringify(subscription.target_type)}` }, target }
  }
}

/** The "you've been subscribed" message to recipients newly added to an e-mail subscription. */
export const subscribedMail = (to: string, report: Report, inviteMessage: string | null): Mail => ({
  to,
  subject: `You've been subscribed to ${reportSubject(report)}`,
  text: [
    `You have been subscribed to the ${reportTarget(report).kind} "${reportTarget(report).name}", ${report.subscription.summary}.`,
    ...(inviteMessage ? ['', inviteMessage] : []),
    '',
    `Open it: ${reportTarget(report).url}`,
    ...(reportTarget(report).shared_url ? [`Shared view: ${reportTarget(report).shared_url}`] : []),
  ].join('\n'),
})
