import t, { type Test } from 'tap'
import { Unavailable, WrongExpectedVersion } from '../../src/eventlog/errors.js'
import type { EventData, EventLog } from '../../src/eventlog/port.js'
import { newEventId, randomUuid } from '../../src/kernel/ids.js'
import { collect } from '../support/collect.js'
import { faultProxy, firstServer, throughProxy, type FaultProxy } from '../support/fault-proxy.js'

// EventStoreDB behind the fault proxy: what the service meets when the server goes away, restarts
// or slows down. The client reports such failures and reconnects on the next call; it never
// retries by itself, so every case retries as the service does, with the same event ids.

const url = process.env['HEDGELOG_TEST_EVENTSTORE_URL']
if (!url) t.comment('event log fault cases: skipped eventstoredb (set HEDGELOG_TEST_EVENTSTORE_URL to run them)')
else {
  const { EsdbEventLog } = await import('../../src/eventlog/esdb.js')

  const open = async (t: Test): Promise<{ proxy: FaultProxy; log: EventLog }> => {
    const proxy = await faultProxy(firstServer(url))
    const log = EsdbEventLog.connect(throughProxy(url, proxy))
    t.teardown(async () => { await log.close(); await proxy.close() })
    return { proxy, log }
  }
  const one = (): EventData[] => [{ id: newEventId(), type: 'FaultChecked', data: { at: Date.now() } }]
  const stream = (name: string) => `fault-${name}-${randomUuid().slice(0, 8)}`
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  const failure = (work: Promise<unknown>): Promise<unknown> => work.then(() => null, (error: unknown) => error)

  /** Appends with `no_stream` until it lands; a conflict means an earlier try already stored it. */
  const appendUntilStored = async (log: EventLog, name: string, events: EventData[], withinMs = 30_000): Promise<void> => {
    const until = Date.now() + withinMs
    for (;;) {
      const error = await failure(log.append(name, events, { expectedRevision: 'no_stream' }))
      if (error === null || error instanceof WrongExpectedVersion) return
      if (!(error instanceof Unavailable) || Date.now() > until) throw error
      await sleep(250)
    }
  }

  const storedIds = async (log: EventLog, name: string) => (await collect(log.readStream(name))).map((event) => event.id)

  t.test('with the server down at start, an append fails as Unavailable, and goes through once the server is back', async (t) => {
    const { proxy, log } = await open(t)
    await proxy.cut()
    const name = stream('start')
    const events = one()
    t.ok(await failure(log.append(name, events, { expectedRevision: 'no_stream' })) instanceof Unavailable, 'Unavailable, not another error')
    await proxy.restore()
    await appendUntilStored(log, name, events)
    t.same(await storedIds(log, name), events.map((event) => event.id))
  })

  t.test('an outage under load: every append lands or fails as Unavailable, and retries with the same ids store each event once', async (t) => {
    const { proxy, log } = await open(t)
    await appendUntilStored(log, stream('warm'), one())
    const work = Array.from({ length: 40 }, (_, i) => ({ name: stream(`load-${i}`), events: one() }))
    const outcomes = work.map(({ name, events }) => failure(log.append(name, events, { expectedRevision: 'no_stream' })))
    await sleep(5)
    await proxy.cut()
    const errors = await Promise.all(outcomes)
    t.same(errors.filter((error) => error !== null && !(error instanceof Unavailable)), [], 'no failure but Unavailable')
    await sleep(500)
    await proxy.restore()
    for (const { name, events } of work) await appendUntilStored(log, name, events)
    for (const { name, events } of work) t.same(await storedIds(log, name), events.map((event) => event.id), `${name} holds its event once`)
  })

  t.test('a server that goes away while an append is on the wire: a retry with the same ids stores the event once', async (t) => {
    const { proxy, log } = await open(t)
    await appendUntilStored(log, stream('warm'), one())
    // The request reaches the server after 400 ms; its answer is still on its way when the connection is cut.
    proxy.delay(400)
    const name = stream('mid-append')
    const events = one()
    const outcome = failure(log.append(name, events, { expectedRevision: 'no_stream' }))
    await sleep(600)
    await proxy.cut()
    const error = await outcome
    t.ok(error === null || error instanceof Unavailable, 'the outcome is unknown, never another error')
    await proxy.restore()
    await appendUntilStored(log, name, events)
    t.same(await storedIds(log, name), events.map((event) => event.id), 'one copy')
  })

  t.test('a slow server: appends and reads go through 300 ms of latency each way', async (t) => {
    const { proxy, log } = await open(t)
    await appendUntilStored(log, stream('warm'), one())
    proxy.delay(300)
    const name = stream('slow')
    const events = one()
    const start = Date.now()
    await log.append(name, events, { expectedRevision: 'no_stream' })
    t.same(await storedIds(log, name), events.map((event) => event.id))
    t.ok(Date.now() - start >= 1150, 'both calls crossed the latency')
  })

  t.test('a subscription cut by an outage fails as Unavailable and, subscribed again, misses nothing', async (t) => {
    const { proxy, log } = await open(t)
    const type = `FaultSeen${randomUuid().slice(0, 8)}`
    await log.append(stream('sub'), [{ id: newEventId(), type, data: {} }])
    const seen: string[] = []
    const follow = async () => {
      for await (const item of log.subscribeToAll({ fromPosition: 'start', filter: { eventTypes: [type] } })) {
        if (item.kind === 'event') seen.push(item.event.id)
        if (seen.length === 2) return
      }
    }
    const cutShort = failure(follow())
    await sleep(500)
    await proxy.cut()
    t.ok(await cutShort instanceof Unavailable, 'the subscription ended with Unavailable')
    await proxy.restore()
    const later: EventData[] = [{ id: newEventId(), type, data: {} }]
    await appendUntilStored(log, stream('sub'), later)
    seen.length = 0
    await follow()
    t.equal(seen.length, 2, 'both events, after resuming')
  })
}
