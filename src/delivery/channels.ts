import type { Mailer } from '../mail/mailer.js'
import { postJson } from './outbound.js'
import type { Channels, SlackBot } from './targets.js'

export interface ChannelOptions {
  readonly mailer: Mailer | undefined
  /** Lets deliveries reach loopback and private addresses (`HEDGELOG_DELIVERY_ALLOW_PRIVATE=1`). */
  readonly allowPrivate: boolean
  /** A receiver that has not answered by then is cut off. */
  readonly timeoutMs: number
  readonly log: Channels['log']
  /** A Slack app's bot token and Slack's Web API, when deliveries post as a bot (and can reply in threads). */
  readonly slackBot?: SlackBot
}

export const deliveryChannels = (options: ChannelOptions): Channels => ({
  post: (url, body, headers) => postJson(url, body, { headers: { ...headers }, allowPrivate: options.allowPrivate, timeoutMs: options.timeoutMs }),
  mailer: options.mailer,
  log: options.log,
  ...(options.slackBot ? { slackBot: options.slackBot } : {}),
})
