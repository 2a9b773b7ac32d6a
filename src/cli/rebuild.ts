import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { EventLog, Position } from '../eventlog/port.js'
import { positionToString } from '../eventlog/port.js'
import type { ReadStore } from '../readstore/port.js'
import { SqliteReadStore } from '../readstore/sqlite.js'
import { parseCutoff, resolveCutoff } from '../eventlog/cutoff.js'
import { verifyProjections, type VerifyReport } from './verify-projections.js'
import { allProjectors } from '../modules.js'
import { ownFilesOf } from '../readstore/sqlite-shards.js'
import type { ProjectionDigest } from '../../projections/digest.js'
import type { Projector } from '../readstore/projector.js'
import { digestAll, replay, ReplayStopped } from '../../projections/replay.js'
import { progress, Stopped } from './progress.js'
import { CliRefused } from '../kernel/cli-refused.js'
import { claimScratchDir, removeScratchLeftovers } from './scratch-dirs.js'
import { ReadModels } from '../readstore/read-models.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { replayedLive, type LiveDifference } from '../insights/live/replayed.js'

export class RebuildRefused extends CliRefused {}

/** The projectors named by `--projection` (all when it is absent). */
export const projectorsNamed = (name: string | undefined): readonly Projector[] => {
  if (name === undefined) return allProjectors
  const found = allProjectors.filter((p) => p.name === name)
  if (found.length === 0) throw new RebuildRefused(`unknown projection: ${name}; projections are ${allProjectors.map((p) => p.name).join(', ')}`)
  return found
}

/** `--until` as a log position: the last event at or before it (the head when absent). */
export const untilPosition = async (log: EventLog, until: string | undefined): Promise<Position> => {
  if (until === undefined) return (await log.headPosition()) ?? { commit: -1n, prepare: -1n }
  const cutoff = parseCutoff(until)
  if (!cutoff) throw new RebuildRefused(`--until takes a log position (e.g. 1234) or an ISO 8601 time, not ${JSON.stringify(until)}`)
  return resolveCutoff(log, cutoff)
}

/**
 * A throwaway SQLite read store in a directory of its own under `root`, removed with it when
 * `dispose` is called. What earlier replays killed before their `dispose` left there goes first.
 */
export const scratchStore = (root: string): { store: ReadStore; dispose: () => Promise<void> } => {
  removeScratchLeftovers(root)
  const dir = claimScratchDir(root)
  const store = new SqliteReadStore({ path: join(dir.path, 'readmodels.sqlite') })
  return { store, dispose: async () => { await store.close(); dir.release() } }
}

/** A read store in `dir` for a rebuild to keep, refused when one is already there. */
const keptStore = (dir: string): { store: ReadStore; dispose: (keep: boolean) => Promise<void> } => {
  const path = join(dir, 'readmodels.sqlite')
  const ownFiles = ownFilesOf(allProjectors)
  const existing = SqliteReadStore.paths(path, ownFiles).find((file) => existsSync(file))
  if (existing !== undefined) throw new RebuildRefused(`${existing} already exists: --into needs a directory without read models`)
  mkdirSync(dir, { recursive: true })
  const store = new SqliteReadStore({ path, ownFiles })
  return {
    store,
    dispose: async (keep) => {
      await store.close()
      if (!keep) for (const file of SqliteReadStore.paths(path, ownFiles)) for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true })
    },
  }
}

/** What the live insights of a replay answered: how many queries, the digest of their answers, and the moment they answered for. */
export interface LiveInsightsDigest {
  readonly queries: number
  /** The analytics events they were given. */
  readonly events: number
  readonly sha256: string
  /** The moment the answers are for; null when no query is kept live. */
  readonly at: string | null
}

export interface RebuildResult {
  readonly until: string
  readonly into: string | null
  readonly projections: readonly ProjectionDigest[]
  /** Null when only some projections were rebuilt: live insights read several of them. */
  readonly liveInsights: LiveInsightsDigest | null
}

/** Read models over a replay's store, as queries read them. */
const modelsOver = (store: ReadStore): ReadModels => new ReadModels({ store, registry: new ProjectionRegistry(store), projectors: allProjectors })

/**
 * Replays the log up to `until` into fresh read models (kept in `into`, or thrown away) while the
 * live ones keep serving, and digests each. Stopped, it removes what it wrote.
 */
export const rebuild = async (
  log: EventLog,
  options: { projectors: readonly Projector[]; until: Position; into: string | null; scratchRoot: string; shouldStop: () => boolean; partitions?: number },
): Promise<RebuildResult> => {
  const target = options.into === null ? { ...scratchStore(options.scratchRoot), kept: false } : { ...keptStore(options.into), kept: true }
  let finished = false
  const bar = progress({ label: 'rebuild', unit: 'log positions', total: Number(options.until.commit) })
  try {
    await replay({
      log, store: target.store, projectors: options.projectors, until: options.until, partitions: options.partitions ?? 1,
      onProgress: (reached) => bar.update(Number(reached)), shouldStop: options.shouldStop,
    })
    bar.update(Number(options.until.commit))
    bar.done()
    const projections = await digestAll(target.store, options.projectors)
    const live = options.projectors === allProjectors ? await replayedLive(log, modelsOver(target.store), options.until, { compare: false }) : null
    finished = true
    return {
      until: positionToString(options.until), into: options.into, projections,
      liveInsights: live === null ? null : { queries: live.queries, events: live.events, sha256: live.sha256, at: live.at === null ? null : new Date(live.at).toISOString() },
    }
  } catch (error) {
    if (error instanceof ReplayStopped) throw new Stopped('rebuild')
    throw error
  } finally {
    await target.dispose(target.kept && finished)
  }
}

export interface VerifyResult extends VerifyReport {
  /**
   * The live insights built over the replay, each answer compared with the query engine's over
   * the replayed read models; null when only some projections were verified or documents differ.
   */
  readonly liveInsights: (LiveInsightsDigest & { readonly difference: LiveDifference | null }) | null
}

/**
 * Replays beside the live read models and compares every document; then builds the live insights
 * over the replay and compares each answer with the query engine's.
 */
export const verify = async (
  log: EventLog, live: ReadStore, options: { projectors: readonly Projector[]; scratchRoot: string; shouldStop: () => boolean },
): Promise<VerifyResult> => {
  const scratch = scratchStore(options.scratchRoot)
  const head = await log.headPosition()
  const bar = progress({ label: 'verify', unit: 'log positions', total: head ? Number(head.commit) : 0 })
  try {
    const report = await verifyProjections({
      log, live, scratch: scratch.store, projectors: options.projectors, shouldStop: options.shouldStop,
      onProgress: (reached) => bar.update(Number(reached)),
    })
    bar.done()
    if (report.difference !== null || options.projectors !== allProjectors) return { ...report, liveInsights: null }
    const replayed = await replayedLive(log, modelsOver(scratch.store), report.replayedTo, { compare: true, now: Date.now() })
    return {
      ...report,
      liveInsights: { queries: replayed.queries, events: replayed.events, sha256: replayed.sha256, at: replayed.at === null ? null : new Date(replayed.at).toISOString(), difference: replayed.difference },
    }
  } catch (error) {
    if (error instanceof ReplayStopped) throw new Stopped('verify')
    throw error
  } finally {
    await scratch.dispose()
  }
}

export const digestLines = (projections: readonly ProjectionDigest[], live: LiveInsightsDigest | null = null): string =>
  [
    ...projections.map((p) => {
      const counts = Object.entries(p.collections).map(([name, c]) => `${name}=${c.count}`).join(' ')
      return `${p.projection}\tv${p.version}\t${counts}\t${p.sha256}`
    }),
    ...(live === null ? [] : [live.at === null ? 'live insights\tnone kept' : `live insights\tat ${live.at}\tqueries=${live.queries} events=${live.events}\t${live.sha256}`]),
  ].join('\n')
