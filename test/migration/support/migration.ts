import { join } from 'node:path'
import { initialize, type Installation } from '../../../src/accounts/commands.js'
import type { EventLog } from '../../../src/eventlog/port.js'
import { SqliteEventLog } from '../../../src/eventlog/sqlite.js'
import { capture } from '../../../src/ingestion/capture.js'
import type { EventsCapturedData } from '../../../src/ingestion/captured-event.js'
import { IMPORT_COMMITTED, capturedFromImport } from '../../../src/ingestion/import-events.js'
import { SqliteReadStore } from '../../../src/readstore/sqlite.js'
import type { ProjectionDigest } from '../../../projections/digest.js'
import { events } from '../../../src/events/projection.js'
import { groups } from '../../../src/groups/projection.js'
import { persons } from '../../../src/persons/projection.js'
import { sessions } from '../../../src/sessions/projection.js'
import { digestAll, replay } from '../../../projections/replay.js'
import { context } from '../../support/world.js'

/** The read models an analytics migration must carry over exactly. */
export const CAPTURED_PROJECTORS = [persons, groups, sessions, events]

/** A data directory's event log with an installation in it. */
export const dataDir = async (dir: string): Promise<{ log: SqliteEventLog; installation: Installation }> => {
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  return { log, installation: await initialize(log, context()) }
}

const START = Date.UTC(2024, 0, 1)

/**
 * The `n`th of a varied stream of analytics events: a few thousand people, pageviews with
 * sessions, identifies that merge anonymous ids, person properties and group membership.
 */
export const sampleEvent = (n: number): Record<string, unknown> => {
  const user = `user-${n % 2500}`
  const timestamp = new Date(START + n * 1000).toISOString()
  const session = `0190a000-0000-7000-8000-${String(Math.floor(n / 40) % 100_000).padStart(12, '0')}`
  const properties: Record<string, unknown> = { $session_id: session, $current_url: `https://example.com/p/${n % 31}`, seq: n }
  if (n % 500 === 7) return { event: '$identify', distinct_id: user, timestamp, properties: { ...properties, $anon_distinct_id: `anon-${n % 2500}`, $set: { email: `${user}@example.com` } } }
  if (n % 250 === 3) return { event: '$groupidentify', distinct_id: user, timestamp, properties: { seq: n, $group_type: 'company', $group_key: `c${Math.floor(n / 250) % 40}`, $group_set: { plan: n % 2 ? 'pro' : 'free' } } }
  if (n % 10 === 1) return { event: 'upgraded', distinct_id: user, timestamp, properties: { ...properties, $groups: { company: `c${n % 40}` }, $set_once: { first_seen: timestamp } } }
  return { event: '$pageview', distinct_id: n % 7 === 0 ? `anon-${n % 2500}` : user, timestamp, properties }
}

/** Sends events `from`…`to - 1` through `/batch/`'s code: realtime, or historical when asked. */
export const ingest = async (log: EventLog, installation: Installation, from: number, to: number, historical: boolean): Promise<void> => {
  const size = historical ? 10_000 : 1000
  for (let start = from; start < to; start += size) {
    const batch = Array.from({ length: Math.min(size, to - start) }, (_, i) => sampleEvent(start + i))
    const body = Buffer.from(JSON.stringify({ api_key: installation.project_api_key, historical_migration: historical, batch }))
    await capture({ log, resolveToken: () => installation.environment_id }, {
      body, headers: { 'content-type': 'application/json' }, ip: '203.0.113.9', maxDecodedBytes: body.length + 1,
    })
  }
}

/** Replays the log into a throwaway store and digests the captured-data read models. */
export const capturedDigests = async (log: EventLog): Promise<ProjectionDigest[]> => {
  const store = new SqliteReadStore({ path: ':memory:' })
  try {
    await replay({ log, store, projectors: CAPTURED_PROJECTORS, until: (await log.headPosition())! })
    return await digestAll(store, CAPTURED_PROJECTORS)
  } finally {
    await store.close()
  }
}

/** Every analytics event the log's committed imports hold, as their `seq` properties. */
export const importedSeqs = async (log: EventLog): Promise<number[]> => {
  const seqs: number[] = []
  for await (const record of log.readAll()) {
    if (record.type !== IMPORT_COMMITTED) continue
    for await (const chunk of capturedFromImport(log, record)) {
      for (const event of (chunk.data as EventsCapturedData).events) seqs.push(Number(event.properties['seq']))
    }
  }
  return seqs
}
