import t from 'tap'
import { buildApp } from '../../src/app.js'
import { Unavailable } from '../../src/eventlog/errors.js'
import type { EventLog, SubscribeOptions, Subscription, SubscriptionItem } from '../../src/eventlog/port.js'
import { world } from '../support/world.js'

interface Insight {
  id: number
  result: Array<{ label: string; count: number }> | null
  is_cached: boolean
  query_status: unknown
}

/**
 * The real log, whose subscriptions can be made to fail at once, as a log server that goes away
 * fails them: each one open when `cut` is called throws `Unavailable` from its next read.
 */
const cuttable = (log: EventLog) => {
  const open = new Set<(error: Error) => void>()
  const wrap = (subscription: Subscription): Subscription => {
    let failWith: (error: Error) => void = () => undefined
    const failed = new Promise<never>((_, reject) => { failWith = reject })
    failed.catch(() => undefined)
    open.add(failWith)
    const inner = subscription[Symbol.asyncIterator]()
    const iterator: AsyncIterator<SubscriptionItem> = {
      next: () => Promise.race([inner.next(), failed]),
      return: async () => {
        open.delete(failWith)
        await subscription.unsubscribe()
        return { done: true, value: undefined }
      },
    }
    return { [Symbol.asyncIterator]: () => iterator, unsubscribe: async () => { await iterator.return!() } }
  }
  const proxied = new Proxy(log, {
    get(target, key) {
      if (key === 'subscribeToAll') return (options?: SubscribeOptions) => wrap(target.subscribeToAll(options))
      const value = Reflect.get(target, key, target) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
  return {
    log: proxied,
    cut() {
      for (const fail of open) fail(new Unavailable('the event log went away'))
      open.clear()
    },
  }
}

t.test('live insights recover from a log that fails their subscriptions: the failed generation stops serving, a new one is built and counts what came after', async (t) => {
  const w = await world(t)
  const cut = cuttable(w.log)
  const app = await buildApp({ log: cut.log, store: w.store, models: w.models, projections: w.projections, roles: ['api', 'ingest'] })
  t.teardown(() => app.close())
  const token = w.installation.project_api_key
  const base = `/api/environments/${w.installation.environment_id}`
  const capture = async (distinctId: string) => {
    const answer = await app.inject({ method: 'POST', url: '/capture/', payload: { api_key: token, event: '$pageview', distinct_id: distinctId } })
    t.equal(answer.statusCode, 200)
  }
  const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' } } }
  const created = await app.inject({ method: 'POST', url: `${base}/insights/`, headers: w.bearer(w.key.value), payload: { name: 'Views', query, saved: true } })
  t.equal(created.statusCode, 201)
  const id = created.json<Insight>().id
  const liveCount = async (count: number, what: string): Promise<void> => {
    const started = Date.now()
    for (;;) {
      const insight = (await app.inject({ method: 'GET', url: `${base}/insights/${id}/`, headers: w.bearer(w.key.value) })).json<Insight>()
      if (insight.is_cached && insight.query_status === null && insight.result?.[0]?.count === count) {
        t.pass(what)
        return
      }
      if (Date.now() - started > 15_000) {
        t.fail(`${what} within 15 s: ${JSON.stringify(insight).slice(0, 400)}`)
        return
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  await capture('ann')
  await liveCount(1, 'answered live before the failure')
  cut.cut()
  await capture('bob')
  await capture('cy')
  await liveCount(3, 'answered live again, counting the events captured after the failure')
  const status = (await app.inject({ method: 'GET', url: `${base}/insights/live/`, headers: w.bearer(w.key.value) })).json<{ serving: { caught_up: boolean; failure: string | null } | null }>()
  t.match(status.serving, { caught_up: true, failure: null }, 'a generation without failure serves')
})
