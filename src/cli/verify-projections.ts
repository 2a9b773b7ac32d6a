import { comparePositions, positionToString, type EventLog, type JsonObject, type Position } from '../eventlog/port.js'
import { canonicalJson } from '../kernel/canonical-json.js'
import type { ReadStore } from '../readstore/port.js'
import { checkpointNames, physicalCollection, type Build } from '../readstore/names.js'
import { buildPosition } from '../readstore/build-position.js'
import type { Projector } from '../readstore/projector.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { Replay, type ReachOptions } from '../../projections/replay.js'
import { BEFORE_START } from '../eventlog/cutoff.js'

/** A document the live read models hold differently from a replay of the log. */
export interface Difference {
  readonly projection: string
  readonly collection: string
  readonly id: string
  /** Where both sides were compared: the live build had applied exactly this much of the log. */
  readonly at: string
  readonly live: JsonObject | null
  readonly rebuilt: JsonObject | null
}

export interface VerifyOptions extends ReachOptions {
  readonly log: EventLog
  /** The read models in service. */
  readonly live: ReadStore
  /** An empty store for the replay. */
  readonly scratch: ReadStore
  readonly projectors: readonly Projector[]
  /** Documents compared so far, now and then. */
  readonly onCompared?: (documents: number) => void
}

export interface VerifyReport {
  /** Documents compared. */
  readonly documents: number
  /** Documents compared a second time because the live build had moved on during the first pass. */
  readonly rechecked: number
  readonly difference: Difference | null
  /** Where the replay stood when the comparison ended: every projector had applied the log up to here. */
  readonly replayedTo: Position
}

interface Target {
  readonly projector: Projector
  readonly collection: string
  readonly live: Build
  /** The build's checkpoints: one, or one per partition. */
  readonly checkpoints: readonly string[]
}

const same = (a: JsonObject | null, b: JsonObject | null): boolean => canonicalJson(a) === canonicalJson(b)

/** Where every checkpoint of `names` stands, when they all stand at one position (BEFORE_START: none has one); else undefined. */
const onePosition = async (store: ReadStore, names: readonly string[]): Promise<Position | undefined> => {
  let at: Position | null | undefined
  for (const name of names) {
    const stored = await store.checkpoint(name)
    if (at === undefined) at = stored
    else if (at === null ? stored !== null : stored === null || comparePositions(at, stored) !== 0) return undefined
  }
  return at ?? BEFORE_START
}

/**
 * A live document together with the exact position its build had reached when it was read. The
 * partitions of a build move apart while events arrive; a read is dated once they stand together.
 */
const settledRead = async (store: ReadStore, target: Target, id: string): Promise<{ at: Position; doc: JsonObject | null }> => {
  const collection = physicalCollection(target.collection, target.live)
  for (;;) {
    const before = await onePosition(store, target.checkpoints)
    const doc = await store.get(collection, id)
    const after = await onePosition(store, target.checkpoints)
    // Documents and checkpoint move in one transaction: an unmoved checkpoint dates the read.
    if (before && after && comparePositions(before, after) === 0) return { at: before, doc }
    if (!before || !after) await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Replays the log beside the live read models and compares every document. The live builds keep
 * serving and moving; the replay first stops where the slowest of them stood, and a document
 * that differs there is read again with the position its build has reached, the replay is
 * brought to exactly that position and the document compared again. Only a document that
 * differs at one and the same position is a difference.
 */
export const verifyProjections = async (options: VerifyOptions): Promise<VerifyReport> => {
  const { live, scratch, projectors } = options
  const registry = new ProjectionRegistry(live)
  const targets: Target[] = []
  let start: Position | null = null
  let partitions = 1
  for (const projector of projectors) {
    const build = (await registry.read(projector.name))?.active ?? { version: projector.version, build: 1 }
    partitions = Math.max(partitions, build.partitions ?? 1)
    const checkpoints = checkpointNames(projector.name, build)
    const reached = (await buildPosition(live, projector.name, build)) ?? BEFORE_START
    if (start === null || comparePositions(reached, start) < 0) start = reached
    for (const collection of projector.collections) targets.push({ projector, collection, live: build, checkpoints })
  }
  // Built in as many partitions as the live builds, whose persons number their ids per partition.
  const replay = new Replay({ log: options.log, store: scratch, projectors, until: start ?? BEFORE_START, partitions })
  await replay.start()
  try {
    await replay.reach(replay.position, options)
    const rebuiltBuilds = new ProjectionRegistry(scratch)
    const rebuiltCollection = async (target: Target) =>
      physicalCollection(target.collection, (await rebuiltBuilds.read(target.projector.name))?.active ?? { version: target.projector.version, build: 1 })

    let documents = 0
    const suspects: Array<{ target: Target; id: string }> = []
    for (const target of targets) {
      const rebuilt = await rebuiltCollection(target)
      const liveCollection = physicalCollection(target.collection, target.live)
      for await (const { id, doc } of scratch.scan(rebuilt)) {
        if (!same(doc, await live.get(liveCollection, id))) suspects.push({ target, id })
        if (++documents % 10_000 === 0) options.onCompared?.(documents)
      }
      for await (const { id } of live.scan(liveCollection)) {
        if ((await scratch.get(rebuilt, id)) === null) suspects.push({ target, id })
      }
    }
    options.onCompared?.(documents)

    const settled = []
    for (const suspect of suspects) settled.push({ ...suspect, ...(await settledRead(live, suspect.target, suspect.id)) })
    settled.sort((a, b) => comparePositions(a.at, b.at))
    for (const { target, id, at, doc } of settled) {
      await replay.reach(at, options)
      const rebuilt = await scratch.get(await rebuiltCollection(target), id)
      if (!same(doc, rebuilt)) {
        return {
          documents, rechecked: suspects.length, replayedTo: replay.position,
          difference: { projection: target.projector.name, collection: target.collection, id, at: positionToString(at), live: doc, rebuilt },
        }
      }
    }
    return { documents, rechecked: suspects.length, difference: null, replayedTo: replay.position }
  } finally {
    await replay.stop()
  }
}
