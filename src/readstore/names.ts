import type { Position } from '../eventlog/port.js'
import { WHOLE, partitionsOf, type Partition } from './partition.js'

/**
 * One build of a projector: its code version, a counter that a rebuild increments, and the
 * partitions it is built in (`partition.ts`; absent: one).
 */
export interface Build {
  readonly version: number
  readonly build: number
  readonly partitions?: number
}

/**
 * Where every build records the events it skipped, one record per event with its checkpoint: a
 * store kept in several places keeps each record with its build.
 */
export const QUARANTINE = 'quarantined_events'

/** Where a build keeps a logical collection: builds of one projector never share tables. */
export const physicalCollection = (collection: string, build: Build): string =>
  `${collection}_v${build.version}_b${build.build}`

/**
 * The checkpoint a build keeps in the read store; each partition of a partitioned build
 * (`partition.ts`) keeps its own, and a build of one partition keeps the plain one.
 */
export const checkpointName = (projector: string, build: Build, partition: Partition = WHOLE): string =>
  `${projector}@v${build.version}#${build.build}${partition.count > 1 ? `~${partition.index}of${partition.count}` : ''}`

/** The checkpoints of every partition of a build, the plain one when it has one partition. */
export const checkpointNames = (projector: string, build: Build): string[] =>
  partitionsOf(build.partitions ?? 1).map((partition) => checkpointName(projector, build, partition))

/** How far the head is ahead of `position`: events on SQLite, bytes on EventStoreDB. */
export const lagBehind = (head: Position | null, position: Position | null): number =>
  head === null ? 0 : Math.max(0, Number(head.commit - (position?.commit ?? 0n)))
