import { parseArgs } from 'node:util'
import type { Config } from '../config.js'
import type { EventLog } from '../eventlog/port.js'
import { SealBroken, SealWalkStopped, sealLog, verifySeals, type SealMismatch } from '../audit/seals.js'
import { openEventLog, openStorage } from '../storage.js'
import { audit } from './audit.js'
import { CliRefused } from '../kernel/cli-refused.js'
import { environmentOption, exportToStream, importFromSource } from './migrate.js'
import { progress, stopSignal, Stopped } from './progress.js'
import { digestLines, projectorsNamed, rebuild, untilPosition, verify } from './rebuild.js'
import { scratchRoot } from './scratch-dirs.js'

/** A command's exit code: 0 done, 1 a check failed. */
type Command = (config: Config, args: string[]) => Promise<number>

const out = (json: boolean, value: unknown, text: string): void => {
  process.stdout.write(json ? `${JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n` : `${text}\n`)
}

const withLog = async <T>(config: Config, work: (log: EventLog, stop: () => boolean) => Promise<T>): Promise<T> => {
  const log = await openEventLog(config)
  const signal = stopSignal()
  try {
    return await work(log, signal.requested)
  } finally {
    signal.dispose()
    await log.close()
  }
}

const mismatchText = (m: SealMismatch): string =>
  `seal at ${m.seal} fails: ${m.reason}${m.event ? `\nfirst changed event: ${m.event.stream}@${m.event.revision} (${m.event.type}, id ${m.event.id}, position ${m.event.position})` : ''}`

const auditCommand: Command = async (config, args) => {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, at: { type: 'string' }, environment: { type: 'string' } },
  })
  const result = await withLog(config, (log) => audit(log, {
    words: positionals, at: values.at, environment: values.environment, scratchRoot: scratchRoot(config.dataDir), partitions: config.HEDGELOG_PROJECTION_PARTITIONS,
  }))
  out(values.json, result.json, result.text)
  return 0
}

const rebuildCommand: Command = async (config, args) => {
  const { values } = parseArgs({
    args, options: { projection: { type: 'string' }, until: { type: 'string' }, into: { type: 'string' }, json: { type: 'boolean', default: false } },
  })
  const projectors = projectorsNamed(values.projection)
  const result = await withLog(config, async (log, shouldStop) =>
    rebuild(log, {
      projectors, until: await untilPosition(log, values.until), into: values.into ?? null, scratchRoot: scratchRoot(config.dataDir), shouldStop,
      partitions: config.HEDGELOG_PROJECTION_PARTITIONS,
    }))
  out(values.json, result, `rebuilt up to ${result.until}${result.into ? ` into ${result.into}` : ''}\n${digestLines(result.projections, result.liveInsights)}`)
  return 0
}

/** Runs a walk over the seals, turning a stop request into the CLI's Stopped. */
const sealWalk = async <T>(what: string, walk: () => Promise<T>): Promise<T> => {
  try {
    return await walk()
  } catch (error) {
    if (error instanceof SealWalkStopped) throw new Stopped(what)
    throw error
  }
}

const verifySealsOnly = async (config: Config, json: boolean): Promise<number> => {
  const report = await withLog(config, async (log, shouldStop) => {
    const bar = progress({ label: 'verify --seals', unit: 'log positions', total: Number((await log.headPosition())?.commit ?? 0n) })
    const result = await sealWalk('verify --seals', () => verifySeals(log, { onEvent: (position) => bar.update(Number(position.commit)), shouldStop }))
    bar.done()
    return result
  })
  const { walker: _walker, ...summary } = report
  const text = report.mismatch
    ? mismatchText(report.mismatch)
    : `every seal matches: ${report.seals} seals, ${report.events} events, ${report.unsealed} after the last seal\nchain ${report.chainSha256}`
  out(json, summary, text)
  return report.mismatch ? 1 : 0
}

const verifyCommand: Command = async (config, args) => {
  const { values } = parseArgs({ args, options: { seals: { type: 'boolean', default: false }, projection: { type: 'string' }, json: { type: 'boolean', default: false } } })
  if (values.seals) return verifySealsOnly(config, values.json)
  const projectors = projectorsNamed(values.projection)
  const { log, store } = await openStorage(config)
  const signal = stopSignal()
  try {
    const report = await verify(log, store, { projectors, scratchRoot: scratchRoot(config.dataDir), shouldStop: signal.requested })
    const d = report.difference
    const live = report.liveInsights
    const liveText = live === null ? '' : live.at === null ? '\nlive insights: none kept' : live.difference === null
      ? `\nlive insights match the query engine over the replay: ${live.queries} queries over ${live.events} events at ${live.at}, ${live.sha256}`
      : `\nlive insights differ from the query engine over the replay: ${live.difference.kind} ${live.difference.cacheKey} of environment ${live.difference.environmentId} at ${live.at}\nlive:    ${JSON.stringify(live.difference.live)}\nengine:  ${JSON.stringify(live.difference.engine)}`
    out(values.json, report, d
      ? `read models differ from a replay of the log: ${d.projection} ${d.collection}/${d.id} at ${d.at}\nlive:    ${JSON.stringify(d.live)}\nrebuilt: ${JSON.stringify(d.rebuilt)}`
      : `read models match a replay of the log: ${report.documents} documents (${report.rechecked} compared again as the live projections moved)${liveText}`)
    return d || live?.difference ? 1 : 0
  } finally {
    signal.dispose()
    await log.close()
    await store.close()
  }
}

const sealCommand: Command = async (config, args) => {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } })
  try {
    const seals = await withLog(config, async (log, shouldStop) => {
      const bar = progress({ label: 'seal', unit: 'log positions', total: Number((await log.headPosition())?.commit ?? 0n) })
      const written = await sealWalk('seal', () => sealLog(log, 'cli', { onEvent: (position) => bar.update(Number(position.commit)), shouldStop }))
      bar.done()
      return written
    })
    const last = seals.at(-1)
    out(values.json, { seals }, last
      ? `sealed ${last.eventCount} events through ${last.through} in ${seals.length} seal(s)\nchain ${last.chainSha256}`
      : 'nothing to seal: every event is covered by a seal already')
    return 0
  } catch (error) {
    if (!(error instanceof SealBroken)) throw error
    process.stderr.write(`hedgelog: refusing to seal: ${mismatchText(error.mismatch)}\n`)
    return 1
  }
}

const exportCommand: Command = async (config, args) => {
  const { values } = parseArgs({ args, options: { environment: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' } } })
  const environment = environmentOption(values.environment)
  const events = await withLog(config, (log, shouldStop) => exportToStream(log, process.stdout, {
    environment, shouldStop, ...(values.since ? { since: values.since } : {}), ...(values.until ? { until: values.until } : {}),
  }))
  process.stderr.write(`exported ${events} events\n`)
  return 0
}

const importCommand: Command = async (config, args) => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { environment: { type: 'string' }, 'chunk-lines': { type: 'string' } } })
  const environment = environmentOption(values.environment)
  if (positionals.length !== 1) throw new CliRefused('import takes one FILE, or - for standard input')
  const chunk = values['chunk-lines']
  if (chunk !== undefined && !/^[1-9]\d{0,5}$/.test(chunk)) throw new CliRefused('--chunk-lines takes a whole number from 1 to 999999')
  const result = await withLog(config, (log, shouldStop) =>
    importFromSource(log, positionals[0]!, { environment, shouldStop, ...(chunk ? { chunkLines: Number(chunk) } : {}) }))
  process.stderr.write(`imported ${result.events} events: ${result.written} chunks written, ${result.skipped} already imported by an earlier run\n`)
  return 0
}

export const auditingCommands: Readonly<Record<string, Command>> = {
  audit: auditCommand, rebuild: rebuildCommand, verify: verifyCommand, seal: sealCommand, export: exportCommand, import: importCommand,
}
