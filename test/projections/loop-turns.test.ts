import t from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { events } from '../../src/events/projection.js'
import { ProjectionRunner } from '../../projections/runner.js'
import { capture, event } from './support/captured.js'

t.test('a partition\'s runner catching up lets the timers of its thread, which renew its lease, run between its commits', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(async () => { await log.close(); await store.close() })
  for (let r = 0; r < 2000; r++) await capture(log, 1, Array.from({ length: 10 }, (_, i) => event('$pageview', `p-${(r + i) % 30}`)))
  const head = (await log.headPosition())!
  const runner = new ProjectionRunner({ log, store, projector: events, build: { version: events.version, build: 1 }, partition: { index: 0, count: 2 }, batchSize: 20 })
  // What a partition's lease renewal is: a timer due while the runner works through the log.
  let fired = 0
  const timer = setInterval(() => { fired++ }, 0)
  const started = performance.now()
  await runner.start()
  t.ok(await runner.waitFor(head, 30_000), 'caught up')
  const ms = performance.now() - started
  clearInterval(timer)
  await runner.stop()
  t.ok(fired >= Math.floor(ms / 80), `a timer fired ${fired} times during ${Math.round(ms)} ms of 1,000 commits`)
})
