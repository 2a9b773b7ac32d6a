import { createReadStream, existsSync, statSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { once } from 'node:events'
import type { Writable } from 'node:stream'
import type { EventLog } from '../eventlog/port.js'
import { parseCutoff, type Cutoff } from '../eventlog/cutoff.js'
import { exportEvents } from '../migration/export.js'
import { importEvents, type ImportProgress } from '../migration/import.js'
import { progress, Stopped } from './progress.js'
import { CliRefused } from '../kernel/cli-refused.js'

export class MigrationRefused extends CliRefused {}

const cutoffOption = (name: string, text: string | undefined): Cutoff | undefined => {
  if (text === undefined) return undefined
  const cutoff = parseCutoff(text)
  if (!cutoff) throw new MigrationRefused(`${name} takes a log position (e.g. 1234) or an ISO 8601 time, not ${JSON.stringify(text)}`)
  return cutoff
}

export const environmentOption = (text: string | undefined): number => {
  if (text === undefined || !/^\d+$/.test(text)) throw new MigrationRefused('--environment takes the id of the environment')
  return Number(text)
}

/**
 * Writes the environment's ingested events as NDJSON, one whole line at a time and waiting for
 * the output to drain, so a stop leaves a file that ends with a complete line.
 */
export const exportToStream = async (
  log: EventLog, out: Writable, options: { environment: number; since?: string; until?: string; shouldStop: () => boolean },
): Promise<number> => {
  const since = cutoffOption('--since', options.since)
  const until = cutoffOption('--until', options.until)
  const head = await log.headPosition()
  const bar = progress({ label: 'export', unit: 'log positions', total: head ? Number(head.commit) : 0 })
  let events = 0
  let stopped = false
  for await (const event of exportEvents(log, {
    environmentId: options.environment, ...(since ? { since } : {}), ...(until ? { until } : {}),
  }, (record) => {
    bar.update(Number(record.position.commit))
    if (options.shouldStop()) stopped = true
  })) {
    if (stopped) break
    if (!out.write(`${JSON.stringify(event)}\n`)) await once(out, 'drain')
    events++
  }
  bar.done()
  if (stopped) throw new Stopped(`export (after ${events} events)`)
  return events
}

/** Lines of a file, or of standard input for `-`, counting the bytes read for progress. */
const linesOf = (source: string, onBytes: (bytes: number) => void): AsyncIterable<string> => {
  const input = source === '-' ? process.stdin : createReadStream(source)
  const reader = createInterface({ input, crlfDelay: Infinity })
  let bytes = 0
  return (async function* () {
    for await (const line of reader) {
      bytes += Buffer.byteLength(line) + 1
      onBytes(bytes)
      yield line
    }
  })()
}

/** Imports an NDJSON file (or stdin) through the historical-migration path; rerunning it resumes. */
export const importFromSource = async (
  log: EventLog, source: string, options: { environment: number; chunkLines?: number; shouldStop: () => boolean },
): Promise<ImportProgress> => {
  if (source !== '-' && !existsSync(source)) throw new MigrationRefused(`no such file: ${source}`)
  const total = source === '-' ? null : statSync(source).size
  const bar = progress({ label: 'import', unit: 'bytes', total })
  const result = await importEvents({
    log, environmentId: options.environment, shouldStop: options.shouldStop,
    onWait: (holder) => process.stderr.write(`another import of the same data is running (pid ${holder.pid} on ${holder.host}): waiting for it to end\n`),
    ...(options.chunkLines ? { chunkLines: options.chunkLines } : {}),
  }, linesOf(source, (bytes) => bar.update(bytes)))
  bar.done()
  if (result.stopped) throw new Stopped(`import (after line ${result.lines - 1}; run it again to resume)`)
  return result
}
