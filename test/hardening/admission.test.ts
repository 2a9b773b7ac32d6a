import t from 'tap'
import { buildApp } from '../../src/app.js'
import type { EventLog } from '../../src/eventlog/port.js'
import type { AdmissionBounds } from '../../src/http/admission.js'
import type { Projections } from '../../src/readstore/projections.js'
import { world } from '../support/world.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Holds the event loop for `ms`, as a request that never yields would. */
const holdLoop = (ms: number): void => {
  const until = performance.now() + ms
  while (performance.now() < until) { /* busy */ }
}

const BOUNDS: AdmissionBounds = { loopDelayMs: 100, decideLoopDelayMs: 60_000, commitWaitMs: 200, projectionLagSeconds: 0, ingestInFlight: 0, retryAfterSeconds: 3 }

/** `target` with some members replaced; the others are its own, called on it. */
const overriding = <T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T => new Proxy(target, {
  get(object, key) {
    if (Object.hasOwn(overrides, key)) return overrides[key as keyof T]
    const value = Reflect.get(object, key, object) as unknown
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value
  },
})

/**
 * The real log, whose appends wait at a gate while it is closed: a commit queue that has stopped
 * keeping up, as a store stalled on its disk would leave it.
 */
const gated = (log: EventLog) => {
  let opened: (() => void) | null = null
  let gate: Promise<void> = Promise.resolve()
  const held = overriding(log, { append: async (...args: Parameters<EventLog['append']>) => { await gate; return log.append(...args) } })
  return {
    held,
    close() { gate = new Promise((resolve) => { opened = resolve }) },
    open() { opened?.() },
  }
}

/** The distinct ids of every captured event in the log. */
const capturedIds = async (log: EventLog): Promise<string[]> => {
  const ids: string[] = []
  for await (const record of log.readAll({ maxCount: 10_000 })) {
    if (record.type !== 'EventsCaptured') continue
    for (const event of (record.data as { events?: { distinct_id?: string }[] }).events ?? []) ids.push(event.distinct_id ?? '')
  }
  return ids
}

t.test('admission control', async (t) => {
  const w = await world(t)
  const token = w.installation.project_api_key
  const capture = (app: typeof w.app, distinctId: string) =>
    app.inject({ method: 'POST', url: '/capture/', payload: { api_key: token, event: 'admitted', distinct_id: distinctId } })

  await t.test('given writes whose durable commit no longer keeps up, new writes are refused with 503 and Retry-After, and every acknowledged event is kept', async (t) => {
    const gate = gated(w.log)
    const app = await buildApp({ log: gate.held, store: w.store, models: w.models, projections: w.projections, roles: ['api', 'ingest'], admission: BOUNDS })
    t.teardown(() => app.close())
    t.equal((await capture(app, 'before')).statusCode, 200, 'admitted while the commits keep up')

    gate.close()
    const waiting = capture(app, 'waiting')
    await sleep(800)
    const refused = await capture(app, 'refused')
    t.equal(refused.statusCode, 503, 'capture refused once the oldest append has waited past the bound')
    t.equal(refused.headers['retry-after'], '3')
    t.same(refused.json(), { status: 503, code: 'service_unavailable', error: 'service unavailable: transient error, please retry' }, "in capture's shape")
    const write = await app.inject({ method: 'POST', url: `/api/environments/${w.installation.environment_id}/dashboards/`, headers: w.bearer(w.key.value), payload: { name: 'refused' } })
    t.equal(write.statusCode, 503, 'a management write is refused too')
    t.equal(write.headers['retry-after'], '3')
    t.match(write.json(), { type: 'server_error', code: 'service_unavailable', attr: null }, "in PostHog's management shape")
    const read = await app.inject({ method: 'GET', url: `/api/environments/${w.installation.environment_id}/dashboards/`, headers: w.bearer(w.key.value) })
    t.equal(read.statusCode, 200, 'reads are not refused for a slow commit queue')
    const decide = await app.inject({ method: 'POST', url: '/decide/?v=3', payload: { token, distinct_id: 'someone' } })
    t.equal(decide.statusCode, 200, 'decide keeps its own budget')
    const health = await app.inject({ method: 'GET', url: '/_health' })
    t.equal(health.statusCode, 200, '/_health is answered: the stores answer')
    t.notOk(health.headers['retry-after'], '/_health is never refused for load')

    gate.open()
    t.equal((await waiting).statusCode, 200, 'the request that was waiting is acknowledged once its commit is made')
    await sleep(600)
    t.equal((await capture(app, 'after')).statusCode, 200, 'admitted again once the queue has drained')
    const stored = await capturedIds(w.log)
    t.ok(stored.includes('waiting') && stored.includes('before') && stored.includes('after'), 'every acknowledged event is in the log')
    t.notOk(stored.includes('refused'), 'the refused one is not')
  })

  await t.test('given as many capture requests in the process as the in-flight bound, the next is refused at once; once they are answered, capture is admitted again', async (t) => {
    const gate = gated(w.log)
    const bounds = { ...BOUNDS, loopDelayMs: 0, commitWaitMs: 0, ingestInFlight: 2 }
    const app = await buildApp({ log: gate.held, store: w.store, models: w.models, projections: w.projections, roles: ['api', 'ingest'], admission: bounds })
    t.teardown(() => app.close())
    gate.close()
    const held = [capture(app, 'held-1'), capture(app, 'held-2')]
    await sleep(50)
    const refused = await capture(app, 'over-the-bound')
    t.equal(refused.statusCode, 503, 'the third capture request is refused while two wait')
    t.equal(refused.headers['retry-after'], '3')
    t.same(refused.json(), { status: 503, code: 'service_unavailable', error: 'service unavailable: transient error, please retry' }, "in capture's shape")
    const batch = await app.inject({ method: 'POST', url: '/batch/', payload: { api_key: token, batch: [{ event: 'over', distinct_id: 'over-the-bound' }] } })
    t.equal(batch.statusCode, 503, '/batch/ counts against the same bound')
    t.equal((await app.inject({ method: 'POST', url: '/decide/?v=3', payload: { token, distinct_id: 'someone' } })).statusCode, 200, 'decide is not counted')
    t.equal((await app.inject({ method: 'GET', url: `/api/environments/${w.installation.environment_id}/dashboards/`, headers: w.bearer(w.key.value) })).statusCode, 200, 'reads are not counted')

    gate.open()
    t.same((await Promise.all(held)).map((answer) => answer.statusCode), [200, 200], 'the two admitted requests are acknowledged')
    const again = await Promise.all([capture(app, 'after-1'), capture(app, 'after-2')])
    t.same(again.map((answer) => answer.statusCode), [200, 200], 'answered requests leave the count: two at once are admitted again')
    const stored = await capturedIds(w.log)
    t.ok(['held-1', 'held-2', 'after-1', 'after-2'].every((id) => stored.includes(id)), 'every acknowledged event is in the log')
    t.notOk(stored.includes('over-the-bound'), 'the refused ones are not')
  })

  await t.test('given an event loop held past the bound, reads and writes are refused but decide and /_health are not; afterwards all are served', async (t) => {
    const app = await buildApp({ log: w.log, store: w.store, models: w.models, projections: w.projections, roles: ['api', 'ingest'], admission: BOUNDS })
    t.teardown(() => app.close())
    await app.ready()
    // Two samples in a row over the bound: each quarter second held for most of it.
    for (let i = 0; i < 8; i++) {
      holdLoop(240)
      await sleep(5)
    }
    const read = await app.inject({ method: 'GET', url: `/api/environments/${w.installation.environment_id}/dashboards/`, headers: w.bearer(w.key.value) })
    t.equal(read.statusCode, 503, 'a read is refused while the loop is held')
    t.equal(read.headers['retry-after'], '3')
    t.equal((await capture(app, 'busy')).statusCode, 503, 'capture is refused')
    const decide = await app.inject({ method: 'POST', url: '/decide/?v=3', payload: { token, distinct_id: 'someone' } })
    // What refused it, should it be refused: admission, a read model still catching up, or a store.
    t.equal(decide.statusCode, 200, 'decide is under its own, larger bound', { body: decide.body, catchingUp: w.projections.catchingUp() })
    const health = await app.inject({ method: 'GET', url: '/_health' })
    t.equal(health.statusCode, 200, '/_health is answered')
    t.notOk(health.headers['retry-after'])
    await sleep(1200)
    t.equal((await capture(app, 'quiet')).statusCode, 200, 'capture is admitted once the loop is free again')
  })

  await t.test('given projections too far behind the log, ingestion is refused while management writes are not', async (t) => {
    // The events projection says it is live and behind, and the first event it has not applied is two minutes old.
    const behind = overriding<Projections>(w.projections, {
      status: async () => ({ events: { ...(await w.projections.status())['events']!, status: 'live', lag: 5, position: null } }),
    })
    const aged = overriding<EventLog>(w.log, { createdAfter: async () => new Date(Date.now() - 120_000) })
    const old = { ...BOUNDS, projectionLagSeconds: 30 }
    const app = await buildApp({ log: aged, store: w.store, models: w.models, projections: behind, roles: ['api', 'ingest'], admission: old })
    t.teardown(() => app.close())
    await app.ready()
    await sleep(700)
    const refused = await capture(app, 'lagging')
    t.equal(refused.statusCode, 503, 'capture is refused')
    t.equal(refused.headers['retry-after'], '3')
    const write = await app.inject({ method: 'POST', url: `/api/environments/${w.installation.environment_id}/dashboards/`, headers: w.bearer(w.key.value), payload: { name: 'kept' } })
    t.equal(write.statusCode, 201, 'a management write is admitted: its own projections are not the ones behind')
  })
})
