import type { EventLog, JsonObject, RecordedEvent } from '../eventlog/port.js'
import type { Partition } from './partition.js'

/**
 * What a projector sees of its read models while it folds one event. `get` is synchronous: the
 * runtime preloads what it can and, when `get` asks for a document it has not loaded, loads it
 * and runs `apply` again from the start, which is safe because `apply` is pure.
 */
export interface ProjectionView {
  get<T extends JsonObject = JsonObject>(collection: string, id: string): T | null
  put(collection: string, id: string, doc: JsonObject): void
  delete(collection: string, id: string): void
  /** A pure derivation of `event` (`derive` must depend on the event alone), computed once for every projection that reads it. */
  decoded<T>(event: RecordedEvent, name: string, derive: () => T): T
  /** Whether this runner's partition holds the documents of `key`; always true for an unpartitioned runner. */
  owns(key: string): boolean
  /** The share of the projection this view builds (`WHOLE` when unpartitioned). */
  readonly partition: Partition
  /**
   * From `fold` only: returns once partition `index` of this build has committed every event
   * before the one being folded, so that the documents it wrote for them can be read. The runtime
   * commits what this partition folded before the event, waits, forgets every loaded document,
   * and folds the event again; this call then returns.
   */
  awaitPartition(index: number): void
}

/**
 * A read model builder: a name, a version (bump it whenever `apply` changes, so the runtime
 * rebuilds beside the live copy), the collections it owns, the event types it reads, and a pure
 * `apply` that must not read the clock, random numbers or anything but the view and the event,
 * and must not mutate documents it reads (they are frozen).
 */
export interface Projector {
  readonly name: string
  readonly version: number
  readonly collections: readonly string[]
  readonly handles: readonly string[]
  /**
   * Collections `apply` only writes and never reads (the events, one document each): the runtime
   * keeps none of their documents once they are committed, only what other collections' reads need.
   */
  readonly writeOnly?: readonly string[]
  /** Fields to index, per collection, created before the first commit. */
  readonly indexes?: Readonly<Record<string, readonly (readonly string[])[]>>
  /**
   * How much work a batch may hold before it is committed (default 500): log events, or the
   * projector's own `weight` of them. Small commits keep the store's write lock, and the thread,
   * free for others.
   */
  readonly batchSize?: number
  /**
   * How much of the projection threads' work this projector is, so threads get even shares; set
   * by the projectors of captured events, which dominate. The figures are each one's time alone
   * over the same captured events (persons 10.4 s, sessions 7.7 s, events 6.0 s and groups 1.6 s
   * for 300,000), so two threads take persons and groups, and sessions and events. Projectors
   * without one are those of management writes: with three threads or more they get one thread
   * to themselves.
   */
  readonly threadWeight?: number
  /**
   * Whether the embedded store keeps this projector's read models in a file of their own, with its
   * own write lock, so its commits never wait for another projector's; set by the projectors of
   * captured events. The first collection anchors its builds.
   */
  readonly ownFile?: boolean
  /**
   * Whether the projection can be built in partitions (`partition.ts`): `apply` writes a
   * document only when `view.owns` grants its key, reads only documents it may write (documents
   * another partition wrote count once `fold` has waited for it with `view.awaitPartition`), and
   * otherwise writes only documents that every partition writes with the same content (a set
   * of values seen). Then the partitions of a build, run in any number of runners at any pace,
   * leave the same documents as one runner.
   */
  readonly partitioned?: boolean
  /**
   * Collections in which each partition keeps what it folds from every event for itself (the
   * group types, which every partition needs to place its own groups): the runtime gives each
   * partition its own copy of every document, kept with the build, never queried nor digested.
   */
  readonly partitionState?: readonly string[]
  /**
   * For a partitioned build only: folds, in every partition, what each keeps of every event for
   * itself (in `partitionState`) to know which documents it holds, before `apply` runs. It sees a
   * log event whole (an expanded import: all its units, before any is applied), also when `apply`
   * later fails on part of it, so every partition folds the same events in the same way. It reads
   * and writes only partition state, and may call `view.awaitPartition` when documents move in
   * from another partition.
   */
  fold?(view: ProjectionView, event: RecordedEvent): void
  /** The work one log event stands for (default 1), e.g. the analytics events in a capture request. */
  weight?(event: RecordedEvent): number
  /**
   * The documents `apply` will read for `event`, so the runtime can load them together instead
   * of one at a time. `peek` answers from what is loaded already (undefined when not loaded);
   * the runtime asks again after each load, so a second round may follow what the first found.
   * `owns` and `partition` are the view's.
   */
  prefetch?(
    event: RecordedEvent, peek: (collection: string, id: string) => JsonObject | null | undefined, owns: (key: string) => boolean,
    partition: Partition,
  ): Iterable<DocumentRef>
  /**
   * The events one log event stands for, when it is only a reference to others (a committed
   * historical import names its chunks); null for an ordinary event. The runtime applies them in
   * order in place of the log event, and commits right after, so one commit holds one expansion.
   */
  expand?(event: RecordedEvent, log: EventLog): AsyncIterable<RecordedEvent> | null
  /**
   * The parts of a log event that packs several (a capture request), each a log event of its own
   * with the same position. When `apply` fails on the whole, the runtime applies the parts one by
   * one and quarantines only those that fail.
   */
  split?(event: RecordedEvent): readonly RecordedEvent[]
  apply(view: ProjectionView, event: RecordedEvent): void
}

export type DocumentRef = readonly [collection: string, id: string]

/** The common case: each event changes at most one document of one collection. */
export const documentProjector = <D extends JsonObject>(definition: {
  readonly name: string
  readonly version: number
  readonly collection: string
  readonly handles: readonly string[]
  readonly indexes?: readonly (readonly string[])[]
  readonly idOf: (event: RecordedEvent) => string | null
  readonly evolve: (doc: D | null, event: RecordedEvent) => D | null
  readonly expand?: Projector['expand']
}): Projector => ({
  name: definition.name,
  version: definition.version,
  collections: [definition.collection],
  handles: definition.handles,
  ...(definition.expand ? { expand: definition.expand } : {}),
  ...(definition.indexes ? { indexes: { [definition.collection]: definition.indexes } } : {}),
  apply(view, event) {
    const id = definition.idOf(event)
    if (id === null) return
    const before = view.get<D>(definition.collection, id)
    const after = definition.evolve(before, event)
    if (after === before) return
    if (after === null) view.delete(definition.collection, id)
    else view.put(definition.collection, id, after)
  },
})

/** Reads a recorded event as one member of a domain union; the type field picks the member. */
export const asDomainEvent = <E extends { type: string; data: unknown }>(event: RecordedEvent): E =>
  ({ type: event.type, data: event.data }) as E
