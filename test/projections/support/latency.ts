/**
 * Time from a durable capture append until its person changes are readable, under a steady
 * ingestion rate, with the captured-event projectors running in the same process (as `serve`
 * runs them). `node dist/test/projections/support/latency.js [events/s] [seconds] [perRequest] [projectors] [changing]`
 * where projectors is `persons` or `all`, and `changing` is the share of events that set a new
 * person property value (the others are page views that only refresh automatic properties).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SqliteEventLog } from '../../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../../src/readstore/sqlite.js'
import { ProjectionSet } from '../../../projections/projection-set.js'
import { ProjectionRegistry } from '../../../projections/registry.js'
import { persons } from '../../../src/persons/projection.js'
import { capture, event } from './captured.js'
import { capturedProjectors } from './stores.js'

const rate = Number(process.argv[2] ?? 5000)
const seconds = Number(process.argv[3] ?? 10)
const perRequest = Number(process.argv[4] ?? 10)
const projectors = process.argv[5] === 'persons' ? [persons] : capturedProjectors
const changing = Number(process.argv[6] ?? 0.1)

const dir = mkdtempSync(join(tmpdir(), 'hedgelog-latency-'))
const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
const store = new SqliteReadStore({ path: join(dir, 'read.sqlite') })
const set = new ProjectionSet({ log, store, registry: new ProjectionRegistry(store), projectors })
await set.start()
const runner = set.activeRunner('persons')!

const latencies: number[] = []
let sent = 0
const started = performance.now()
const pending: Promise<void>[] = []
const request = async (i: number): Promise<void> => {
  const events = Array.from({ length: perRequest }, (_, k) => event('$pageview', `user-${(i * perRequest + k) % 20_000}`, {
    properties: { $session_id: `s-${i % 5000}`, $current_url: `https://a.test/${k}`, $browser: 'Chrome', $lib: 'web' },
    set: Math.random() < changing ? { counter: i } : null,
  }))
  const position = await capture(log, 1, events)
  const acknowledged = performance.now()
  await runner.waitFor(position, 60_000)
  latencies.push(performance.now() - acknowledged)
}
// Requests leave on a fixed schedule, whatever the answers, as independent clients would send them.
const interval = 1000 / (rate / perRequest)
for (let i = 0; performance.now() - started < seconds * 1000; i++) {
  const due = started + i * interval
  const wait = due - performance.now()
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
  pending.push(request(i))
  sent += perRequest
}
await Promise.all(pending)
const elapsed = (performance.now() - started) / 1000
latencies.sort((a, b) => a - b)
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1)
process.stdout.write(`${projectors.length} projector(s), offered ${rate} events/s in requests of ${perRequest}, ${changing * 100}% changing: ${Math.round(sent / elapsed)} events/s done; ` +
  `ack→person readable p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms\n`)
await set.stop()
await store.close()
await log.close()
rmSync(dir, { recursive: true, force: true })
