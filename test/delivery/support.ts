import type { Test } from 'tap'
import { deliveryChannels } from '../../src/delivery/channels.js'
import { runDeliveries, type DeliveryJobDeps } from '../../src/delivery/delivery-job.js'
import type { Mailer } from '../../src/mail/mailer.js'
import type { SlackBot } from '../../src/delivery/targets.js'
import { client } from '../support/client.js'
import { world } from '../support/world.js'

export const PUBLIC_URL = 'https://hedgelog.example.com'

/**
 * A service with subscription delivery allowed to reach loopback, a clock the test moves, and a
 * way to run the scheduler's delivery pass at any instant.
 */
export const deliveryWorld = async (t: Test, options: { mailer?: Mailer; timeoutMs?: number; allowPrivate?: boolean; slackBot?: SlackBot } = {}) => {
  const warnings: { fields: Record<string, unknown>; message: string }[] = []
  const channels = deliveryChannels({
    mailer: options.mailer, allowPrivate: options.allowPrivate ?? true, timeoutMs: options.timeoutMs ?? 2000,
    log: (fields, message) => warnings.push({ fields, message }),
    ...(options.slackBot ? { slackBot: options.slackBot } : {}),
  })
  const w = await world(t, { app: { delivery: { channels, publicUrl: PUBLIC_URL } } })
  const api = client(w.app, w.bearer(w.key.value))
  const environmentId = w.installation.environment_id
  const base = `/api/environments/${environmentId}/subscriptions/`
  const clock = { now: new Date() }
  const deps: DeliveryJobDeps = { log: w.log, models: w.models, channels, publicUrl: PUBLIC_URL, owner: 'scheduler-a', clock: () => clock.now }
  const settle = async () => {
    const head = await w.log.headPosition()
    if (head) await w.models.waitFor(head, ['subscriptions', 'subscription_deliveries', 'environments'])
  }
  /** Moves the clock to `at` and runs one delivery pass, as the scheduler would at that instant. */
  const runAt = async (at: string, jobDeps: DeliveryJobDeps = deps) => {
    clock.now = new Date(at)
    await runDeliveries(jobDeps, clock.now)
    await settle()
  }
  const dashboard = (await api.post(`/api/environments/${environmentId}/dashboards/`, { name: 'Weekly numbers' })).body
  const subscribe = async (fields: Record<string, unknown>): Promise<number> => {
    const created = await api.post(base, { dashboard: dashboard.id, title: 'Numbers', ...fields })
    if (created.status !== 201) throw new Error(`subscription not created: ${created.raw}`)
    return created.body.id
  }
  const subscription = async (id: number) => (await w.models.get('subscriptions', String(id)))!
  return { ...w, api, base, clock, deps, channels, settle, runAt, dashboard, subscribe, subscription, warnings, environmentId }
}

/** Plus one second, as an ISO time. */
export const secondAfter = (iso: string): string => new Date(Date.parse(iso) + 1000).toISOString()
export const secondBefore = (iso: string): string => new Date(Date.parse(iso) - 1000).toISOString()
