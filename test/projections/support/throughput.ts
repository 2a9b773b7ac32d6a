/**
 * Throughput of the captured-event projectors on the embedded stores: appends a realistic mix of
 * posthog-js events, then times each projector (and all of them together) catching up through
 * the runner. `node dist/test/projections/support/throughput.js [events] [perLogEvent]`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CapturedEvent } from '../../../src/ingestion/captured-event.js'
import { SqliteEventLog } from '../../../src/eventlog/sqlite.js'
import { newEventId } from '../../../src/kernel/ids.js'
import { SqliteReadStore } from '../../../src/readstore/sqlite.js'
import { events } from '../../../src/events/projection.js'
import { groups } from '../../../src/groups/projection.js'
import { persons } from '../../../src/persons/projection.js'
import { ProjectionSet } from '../../../projections/projection-set.js'
import type { Projector } from '../../../src/readstore/projector.js'
import { ProjectionRegistry } from '../../../projections/registry.js'
import { sessions } from '../../../src/sessions/projection.js'

const total = Number(process.argv[2] ?? 100_000)
const perLogEvent = Number(process.argv[3] ?? 50)
const users = Math.max(1, Math.floor(total / 20))

const pageview = (i: number, now: number): CapturedEvent => {
  const user = i % users
  const timestamp = new Date(now + i).toISOString()
  const identify = i % 50 === 0
  return {
    uuid: newEventId(now + i),
    event: identify ? '$identify' : '$pageview',
    distinct_id: identify ? `user-${user}` : `anon-${user}`,
    timestamp,
    properties: {
      $current_url: `https://example.com/page/${i % 200}?q=${i % 7}`, $pathname: `/page/${i % 200}`, $host: 'example.com',
      $browser: 'Chrome', $browser_version: 120, $os: 'Mac OS X', $os_version: '14.1', $device_type: 'Desktop',
      $referrer: '$direct', $referring_domain: '$direct', $lib: 'web', $lib_version: '1.200.0',
      $session_id: `session-${user}-${Math.floor(i / (users * 5))}`, $window_id: `w-${user}`,
      $screen_height: 1080, $screen_width: 1920, $viewport_height: 900, $viewport_width: 1600, $timezone: 'Europe/Berlin',
      ...(i % 10 === 0 ? { utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'spring' } : {}),
      ...(identify ? { $anon_distinct_id: `anon-${user}` } : {}),
    },
    set: identify ? { email: `user${user}@example.com`, plan: 'free' } : null,
    set_once: null,
    ip: '10.0.0.1',
    now: timestamp,
    sent_at: timestamp,
  }
}

const fill = async (log: SqliteEventLog): Promise<void> => {
  const now = Date.parse('2024-06-01T00:00:00Z')
  for (let start = 0; start < total; start += perLogEvent) {
    const batch = Array.from({ length: Math.min(perLogEvent, total - start) }, (_, k) => pageview(start + k, now))
    await log.append(`ingest-1-${newEventId()}`, [{ id: newEventId(), type: 'EventsCaptured', data: { environmentId: 1, events: batch } }], { expectedRevision: 'no_stream' })
  }
}

const time = async (dir: string, label: string, projectors: readonly Projector[]): Promise<void> => {
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  const store = new SqliteReadStore({ path: join(dir, `read-${label}.sqlite`) })
  const head = (await log.headPosition())!
  let commits = 0
  let documents = 0
  let commitMs = 0
  const commit = store.commit.bind(store)
  store.commit = async (batch) => {
    const started = performance.now()
    await commit(batch)
    commitMs += performance.now() - started
    commits++
    documents += batch.changes.length
  }
  const set = new ProjectionSet({ log, store, registry: new ProjectionRegistry(store), projectors })
  const profiler = process.env['PROFILE'] ? new Session() : null
  if (profiler) {
    profiler.connect()
    await profiler.post('Profiler.enable')
    await profiler.post('Profiler.start')
  }
  const started = performance.now()
  await set.start()
  for (const projector of projectors) {
    while (!(await set.activeRunner(projector.name)!.waitFor(head, 60_000)));
  }
  const seconds = (performance.now() - started) / 1000
  if (profiler) writeFileSync(`${process.env['PROFILE']}/${label}.cpuprofile`, JSON.stringify((await profiler.post('Profiler.stop')).profile))
  process.stdout.write(`${label.padEnd(10)} ${Math.round(total / seconds).toLocaleString('en-US').padStart(9)} events/s (${seconds.toFixed(2)} s; ${commits} commits of ${documents} documents took ${(commitMs / 1000).toFixed(2)} s)\n`)
  await set.stop()
  await store.close()
  await log.close()
}

const dir = mkdtempSync(join(tmpdir(), 'hedgelog-throughput-'))
try {
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  await fill(log)
  await log.close()
  process.stdout.write(`${total} events, ${perLogEvent} per log event, ${users} users\n`)
  const only = process.argv[4]
  for (const projector of [persons, groups, sessions, events]) {
    if (!only || only === projector.name) await time(dir, projector.name, [projector])
  }
  if (!only) await time(dir, 'all four', [persons, groups, sessions, events])
} finally {
  rmSync(dir, { recursive: true, force: true })
}
