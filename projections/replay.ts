import { logUntil } from '../src/eventlog/until.js'
import type { EventLog, Position } from '../src/eventlog/port.js'
import type { ReadStore } from '../src/readstore/port.js'
import { digestProjection, type ProjectionDigest } from './digest.js'
import { ProjectionSet } from './projection-set.js'
import type { Projector } from './projector.js'
import { ProjectionRegistry } from './registry.js'

export interface ReplayOptions {
  readonly log: EventLog
  /** Fresh read models: nothing of these projectors may be stored here yet. */
  readonly store: ReadStore
  readonly projectors: readonly Projector[]
  /** Every event up to this position, inclusive, and nothing after it. */
  readonly until: Position
  /** Called a few times a second with the least position every projector has reached. */
  readonly onProgress?: (reached: bigint) => void
  /** Checked between waits; a true answer stops the replay early (it then throws ReplayStopped). */
  readonly shouldStop?: () => boolean
}

export class ReplayStopped extends Error {
  constructor() {
    super('replay stopped before it finished')
  }
}

/**
 * Replays the log up to `until` into fresh read models with the projector runtime as it is, on
 * a log that ends there: the same code the live projections run, so the result is what they
 * held when they had applied exactly that much.
 */
export const replay = async (options: ReplayOptions): Promise<void> => {
  const failures: unknown[] = []
  const set = new ProjectionSet({
    log: logUntil(options.log, options.until),
    store: options.store,
    projectors: options.projectors,
    registry: new ProjectionRegistry(options.store),
    onError: (projection, error, fatal) => { if (fatal) failures.push(new Error(`${projection} stopped`, { cause: error })) },
  })
  await set.start()
  try {
    for (;;) {
      if (failures.length > 0) throw failures[0]
      if (options.shouldStop?.()) throw new ReplayStopped()
      const runners = options.projectors.map((p) => set.activeRunner(p.name))
      const reached = runners.map((runner) => runner?.position?.commit ?? -1n)
      options.onProgress?.(reached.reduce((a, b) => (b < a ? b : a), options.until.commit))
      const done = await Promise.all(runners.map((runner) => runner?.waitFor(options.until, 250) ?? false))
      if (done.every(Boolean)) return
    }
  } finally {
    await set.stop()
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
