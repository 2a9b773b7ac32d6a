import { LogLimit, logUpTo } from '../src/eventlog/until.js'
import type { EventLog, Position } from '../src/eventlog/port.js'
import type { ReadStore } from '../src/readstore/port.js'
import { digestProjection, type ProjectionDigest } from './digest.js'
import { ProjectionSet } from './projection-set.js'
import type { Projector } from '../src/readstore/projector.js'
import { ProjectionRegistry } from './registry.js'

export interface ReplayOptions {
  readonly log: EventLog
  /** Fresh read models: nothing of these projectors may be stored here yet. */
  readonly store: ReadStore
  readonly projectors: readonly Projector[]
  /** Every event up to this position, inclusive, and nothing after it (until `reach` moves it). */
  readonly until: Position
  /**
   * The partitions the partitioned projections are built in (default 1), as the live ones are:
   * persons number their integer ids per partition, so only the same count gives the same digest.
   */
  readonly partitions?: number
}

export interface ReachOptions {
  /** Called a few times a second with the least commit position every projector has reached. */
  readonly onProgress?: (reached: bigint) => void
  /** Checked before and after each wait; a true answer stops the replay (it then throws ReplayStopped). */
  readonly shouldStop?: () => boolean
}

export class ReplayStopped extends Error {
  constructor() {
    super('replay stopped before it finished')
  }
}

/**
 * Replays the log into fresh read models with the projector runtime as it is, on a log that ends
 * at a limit: the same code the live projections run, so the result is what they held when they
 * had applied exactly that much. The limit can be moved forwards to compare with a live build
 * that has moved on.
 */
export class Replay {
  private readonly limit: LogLimit
  private readonly failures: unknown[] = []
  private readonly set: ProjectionSet

  constructor(private readonly options: ReplayOptions) {
    this.limit = new LogLimit(options.until)
    this.set = new ProjectionSet({
      log: logUpTo(options.log, this.limit),
      store: options.store,
      projectors: options.projectors,
      registry: new ProjectionRegistry(options.store),
      ...((options.partitions ?? 1) > 1 ? { partitions: options.partitions!, owner: 'replay' } : {}),
      onError: (projection, error, fatal) => { if (fatal) this.failures.push(new Error(`${projection} stopped`, { cause: error })) },
    })
  }

  get position(): Position {
    return this.limit.position
  }

  start(): Promise<void> {
    return this.set.start()
  }

  /** Moves the limit to `position` (never backwards) and waits until every projector has applied it. */
  async reach(position: Position, options: ReachOptions = {}): Promise<void> {
    this.limit.raise(position)
    const target = this.limit.position
    if (target.commit < 0n) return
    for (;;) {
      if (this.failures.length > 0) throw this.failures[0]
      if (options.shouldStop?.()) throw new ReplayStopped()
      const runners = this.options.projectors.map((p) => this.set.activeRunner(p.name))
      const reached = runners.map((runner) => runner?.position?.commit ?? -1n)
      options.onProgress?.(reached.reduce((a, b) => (b < a ? b : a), target.commit))
      const done = await Promise.all(runners.map((runner) => runner?.waitFor(target, 250) ?? false))
      // A stop asked for while the last wait ran is honoured even if the replay reached its end meanwhile.
      if (options.shouldStop?.()) throw new ReplayStopped()
      if (done.every(Boolean)) return
    }
  }

  stop(): Promise<void> {
    return this.set.stop()
  }
}

/** Replays the log up to `until` into `store`, then stops. */
export const replay = async (options: ReplayOptions & ReachOptions): Promise<void> => {
  const run = new Replay(options)
  await run.start()
  try {
    await run.reach(options.until, options)
  } finally {
    await run.stop()
  }
}

/** Each projector's digest over what `store` holds of its active build. */
export const digestAll = async (store: ReadStore, projectors: readonly Projector[]): Promise<ProjectionDigest[]> => {
  const registry = new ProjectionRegistry(store)
  const digests: ProjectionDigest[] = []
  for (const projector of projectors) {
    const entry = await registry.read(projector.name)
    digests.push(await digestProjection(store, projector, entry?.active ?? { version: projector.version, build: 1 }))
  }
  return digests
}
