import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SqliteEventLog } from '../src/eventlog/sqlite.js'
import type { EventData } from '../src/eventlog/port.js'
import { newEventId } from '../src/kernel/ids.js'

import type { Figure } from './figures.js'

/** A ~250-byte event, about the size of a management event with metadata. */
const sample = (i: number): EventData => ({
  id: newEventId(),
  type: 'BenchmarkRecorded',
  data: { index: i, name: `dashboard number ${i}`, description: 'x'.repeat(80), pinned: false, tags: ['a', 'b'] },
  metadata: { correlationId: newEventId(), actor: 'bench', occurredAt: new Date(0).toISOString(), schemaVersion: 1 },
})

const withLog = async <T>(work: (log: SqliteEventLog) => Promise<T>): Promise<T> => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgelog-bench-'))
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  try {
    return await work(log)
  } finally {
    await log.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Durable single-event appends from `writers` concurrent writers, each append opening a new
 * stream named by a time-ordered id, as one accepted ingestion request does.
 */
export const concurrentAppends = (writers: number, durationMs: number): Promise<Figure> => withLog(async (log) => {
  let written = 0
  const deadline = performance.now() + durationMs
  const started = performance.now()
  await Promise.all(Array.from({ length: writers }, async () => {
    for (let i = 0; performance.now() < deadline; i++) {
      await log.append(`ingest-1-${newEventId()}`, [sample(i)], { expectedRevision: 'no_stream' })
      written++
    }
  }))
  const seconds = (performance.now() - started) / 1000
  return { name: `durable appends, ${writers} concurrent single-event writers`, value: written / seconds, unit: 'events/s', target: { atLeast: 20_000 } }
})

/** The management shape: each writer appends to its own aggregate stream with the exact revision. */
export const aggregateAppends = (writers: number, durationMs: number): Promise<Figure> => withLog(async (log) => {
  let written = 0
  const deadline = performance.now() + durationMs
  const started = performance.now()
  await Promise.all(Array.from({ length: writers }, async (_, w) => {
    let revision: bigint | 'no_stream' = 'no_stream'
    for (let i = 0; performance.now() < deadline; i++) {
      revision = (await log.append(`dashboard-${w}`, [sample(i)], { expectedRevision: revision })).nextExpectedRevision
      written++
    }
  }))
  const seconds = (performance.now() - started) / 1000
  return { name: `durable appends, ${writers} writers on their own aggregates`, value: written / seconds, unit: 'events/s', target: { atLeast: 20_000 } }
})

/** Durable appends of `size` events each, one after another. */
export const batchAppends = (size: number, durationMs: number): Promise<Figure> => withLog(async (log) => {
  let written = 0
  const started = performance.now()
  for (let i = 0; performance.now() - started < durationMs; i++) {
    await log.append(`batch-${i}`, Array.from({ length: size }, (_, j) => sample(j)), { expectedRevision: 'no_stream' })
    written += size
  }
  const seconds = (performance.now() - started) / 1000
  return { name: `durable appends of ${size} events`, value: written / seconds, unit: 'events/s' }
})

/** A catch-up subscription from the start over `total` stored events, decoding each. */
export const catchUp = (total: number): Promise<Figure> => withLog(async (log) => {
  for (let i = 0; i < total; i += 1000) {
    await log.append(`seed-${i}`, Array.from({ length: Math.min(1000, total - i) }, (_, j) => sample(i + j)))
  }
  const started = performance.now()
  let read = 0
  for await (const item of log.subscribeToAll({ fromPosition: 'start' })) {
    if (item.kind === 'event') read++
    if (item.kind === 'caughtUp') break
  }
  const seconds = (performance.now() - started) / 1000
  if (read !== total) throw new Error(`catch-up read ${read} of ${total} events`)
  return { name: `catch-up subscription over ${total} events`, value: read / seconds, unit: 'events/s', target: { atLeast: 150_000 } }
})
