import type { Mail, Mailer } from '../mail/mailer.js'
import type { DeliveryTarget } from '../subscriptions/events.js'
import type { AttemptOutcome } from '../subscriptions/delivery-decider.js'
import type { Subscription } from '../subscriptions/state.js'
import { OutboundRefused } from './outbound.js'
import { reportSubject, reportTarget, reportText, type Report } from './report.js'
import { signatureHeader } from './signature.js'

/** How a delivery leaves the process: a JSON POST (refusing addresses not allowed) and, when configured, SMTP. */
export interface Channels {
  post(url: string, body: string, headers: Readonly<Record<string, string>>): Promise<void>
  readonly mailer: Mailer | undefined
  readonly log: (fields: Record<string, unknown>, message: string) => void
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

const postOutcome = async (send: () => Promise<void>): Promise<AttemptOutcome> => {
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

/** Sends one report to the subscription's target; answers the outcome and where it went. */
export const sendReport = async (
  report: Report, subscription: Subscription, environment: EnvironmentFacts, channels: Channels,
): Promise<{ outcome: AttemptOutcome; target: DeliveryTarget }> => {
  const target = deliveryTarget(subscription)
  switch (subscription.target_type) {
    case 'webhook': {
      const body = JSON.stringify({ type: 'subscription.delivery', ...report })
      const headers = { 'x-hedgelog-signature': signatureHeader(environment.webhookSecret, body, new Date(report.sent_at)) }
      return { outcome: await postOutcome(() => channels.post(subscription.target_value, body, headers)), target }
    }
    case 'slack': {
      if (!environment.slackWebhook) {
        return { outcome: { status: 'refused', reason: 'the environment has no Slack incoming webhook (slack_incoming_webhook)' }, target }
      }
      const body = JSON.stringify({ channel: subscription.target_value, text: reportText(report, 'slack'), unfurl_links: false })
      return { outcome: await postOutcome(() => channels.post(environment.slackWebhook!, body, {})), target }
    }
    case 'email': {
      const text = reportText(report)
      const mails = target.recipients.map((to) => ({ to, subject: reportSubject(report), text }))
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
