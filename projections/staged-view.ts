import type { JsonObject, RecordedEvent } from '../src/eventlog/port.js'
import type { DocumentChange, ReadStore } from '../src/readstore/port.js'
import type { DocumentRef, ProjectionView, Projector } from '../src/readstore/projector.js'
import { DecodedEvents } from './decoded-events.js'
import { deepFreeze } from '../src/kernel/deep-freeze.js'
import { DocumentShelf } from './document-shelf.js'
import { WHOLE, ownsKey, type Partition } from '../src/readstore/partition.js'

/** `apply` asked for a document that is not loaded yet. */
class NeedDocument {
  constructor(readonly collection: string, readonly id: string) {}
}

/**
 * A fold needs partition `partition` to have committed every event before the one being folded:
 * the runner commits what precedes the event, waits, and folds it again.
 */
export class NeedPartition {
  constructor(readonly partition: number) {}
}

/** The projector's own code threw on an event: retrying the same event cannot help. */
export class ProjectorFailed extends Error {
  constructor(readonly event: RecordedEvent, override readonly cause: unknown) {
    super('projector failed', { cause })
  }
}

/** Documents kept in one generation; the view keeps two, so at most twice this many. */
const GENERATION_LIMIT = 100_000

export interface StagedViewOptions {
  /** Documents kept in one generation before a commit starts the next (default 100,000). */
  readonly generationSize?: number
  /** Derivations of log events shared with other views; else the view keeps its own. */
  readonly decodings?: DecodedEvents
  /** The share of a partitioned projection this view builds; the whole by default. */
  readonly partition?: Partition
}

/**
 * The documents one runner has loaded or changed, and the changes it has not committed yet. Each
 * event is applied to a staging layer first and merged only when `apply` returns, so an event the
 * projector fails on leaves no trace. The runner is the only writer of its collections, so what it
 * committed stays valid between batches.
 *
 * Loaded documents are kept in two generations: when the newer one is full at a commit, the older
 * one goes and a fresh one starts, and a document read from the older one moves to the newer. What
 * the recent batches read stays, and memory stays bounded.
 */
export class StagedView {
  private docs = new DocumentShelf()
  private older = new DocumentShelf()
  /** The documents with uncommitted changes. */
  private readonly dirty = new DocumentShelf()
  /** What the event being applied has changed so far; merged only when `apply` returns. */
  private readonly staging = new DocumentShelf()
  /** The projector's view of the documents, made once: it reads the staging layer first. */
  private readonly access: ProjectionView
  private readonly generationSize: number
  private readonly decodings: DecodedEvents
  private readonly owns: (key: string) => boolean
  /** The partition's own collections (`Projector.partitionState`), and how a document id is kept there. */
  private readonly ownState: ReadonlySet<string>
  private readonly stateTag: string
  private readonly partition: Partition
  /** The partitions known to have committed every event before the one being folded. */
  private reached: ReadonlySet<number> = new Set()

  constructor(
    private readonly projector: Projector,
    private readonly store: ReadStore,
    private readonly physical: (collection: string) => string,
    options: StagedViewOptions = {},
  ) {
    this.generationSize = options.generationSize ?? GENERATION_LIMIT
    this.decodings = options.decodings ?? new DecodedEvents()
    const partition = this.partition = options.partition ?? WHOLE
    this.owns = partition.count > 1 ? (key) => ownsKey(partition, key) : () => true
    this.ownState = new Set(projector.partitionState ?? [])
    this.stateTag = `${partition.index}of${partition.count}`
    const staged = this.staging
    this.access = {
      get: <T extends JsonObject>(collection: string, given: string) => {
        this.assertOwned(collection)
        const id = this.idIn(collection, given)
        const changed = staged.get(collection, id)
        if (changed !== undefined) return changed as T | null
        const loaded = this.loaded(collection, id)
        if (loaded !== undefined) return loaded as T | null
        throw new NeedDocument(collection, id)
      },
      put: (collection, id, doc) => {
        this.assertOwned(collection)
        staged.set(collection, this.idIn(collection, id), deepFreeze(doc))
      },
      delete: (collection, id) => {
        this.assertOwned(collection)
        staged.set(collection, this.idIn(collection, id), null)
      },
      decoded: (of, name, derive) => this.decodings.get(of, name, derive),
      owns: this.owns,
      partition,
      awaitPartition: (index) => {
        if (!this.reached.has(index)) throw new NeedPartition(index)
      },
    }
  }

  /** The partitions the runner has seen commit every event before the one it folds now. */
  partitionsReached(partitions: ReadonlySet<number>): void {
    this.reached = partitions
  }

  private assertOwned(collection: string): void {
    if (!this.projector.collections.includes(collection) && !this.ownState.has(collection)) {
      throw new TypeError(`${this.projector.name} does not own ${collection}`)
    }
  }

  /** Where a document the projector names is kept: in a partition's own collection, under the partition's tag. */
  private idIn(collection: string, id: string): string {
    return this.ownState.has(collection) ? `${this.stateTag}:${id}` : id
  }

  /** The loaded document (null: it does not exist), or undefined when it is not loaded. */
  private loaded(collection: string, id: string): JsonObject | null | undefined {
    const doc = this.docs.get(collection, id)
    if (doc !== undefined) return doc
    const old = this.older.get(collection, id)
    if (old !== undefined) this.docs.set(collection, id, old)
    return old
  }

  private async load(collection: string, id: string): Promise<void> {
    if (this.loaded(collection, id) === undefined) this.docs.set(collection, id, deepFreeze(await this.store.get(this.physical(collection), id)))
  }

  /** The ids of `refs` not loaded yet, per collection; throws when one names a collection the projector does not own. */
  private missing(refs: Iterable<DocumentRef>): Map<string, Set<string>> {
    const wanted = new Map<string, Set<string>>()
    for (const [collection, given] of refs) {
      this.assertOwned(collection)
      const id = this.idIn(collection, given)
      if (this.loaded(collection, id) !== undefined) continue
      let ids = wanted.get(collection)
      if (!ids) wanted.set(collection, ids = new Set())
      ids.add(id)
    }
    return wanted
  }

  /** Loads the documents `missing` found: one read per collection. How many it loaded. */
  private async loadAll(wanted: Map<string, Set<string>>): Promise<number> {
    let count = 0
    for (const [collection, ids] of wanted) {
      const list = [...ids]
      const found = await this.store.getMany(this.physical(collection), list)
      const docs = this.docs.of(collection)
      for (const id of list) docs.set(id, deepFreeze(found.get(id) ?? null))
      count += list.length
    }
    return count
  }

  /** Loads what the projector says it will read, a few rounds at most; `apply` loads any rest. */
  private async prefetch(event: RecordedEvent): Promise<void> {
    const peek = (collection: string, id: string): JsonObject | null | undefined => this.loaded(collection, this.idIn(collection, id))
    for (let round = 0; round < 4; round++) {
      let wanted: Map<string, Set<string>>
      try {
        wanted = this.missing(this.projector.prefetch!(event, peek, this.owns, this.partition))
      } catch (error) {
        throw new ProjectorFailed(event, error)
      }
      if (await this.loadAll(wanted) === 0) return
    }
  }

  /** Applies one event; throws ProjectorFailed, with nothing changed, when the projector throws. */
  async apply(event: RecordedEvent): Promise<void> {
    await this.run(event, (view) => this.projector.apply(view, event))
  }

  /**
   * Folds one event into the partition's own state (`Projector.fold`), for a partitioned view
   * only; throws NeedPartition or ProjectorFailed with nothing changed.
   */
  async fold(event: RecordedEvent): Promise<void> {
    const { fold } = this.projector
    if (fold && this.partition.count > 1) await this.run(event, (view) => fold(view, event))
  }

  private async run(event: RecordedEvent, step: (view: ProjectionView) => void): Promise<void> {
    if (this.projector.prefetch) await this.prefetch(event)
    const staged = this.staging
    for (;;) {
      staged.clear()
      try {
        step(this.access)
      } catch (error) {
        if (!(error instanceof NeedDocument)) {
          staged.clear()
          if (error instanceof NeedPartition) throw error
          throw new ProjectorFailed(event, error)
        }
        await this.load(error.collection, error.id)
        continue
      }
      for (const [collection, id, doc] of staged.entries()) {
        this.docs.set(collection, id, doc)
        this.dirty.set(collection, id, doc)
      }
      staged.clear()
      return
    }
  }

  /** The uncommitted changes, in the store's collection names; `committed` forgets them. */
  changes(): DocumentChange[] {
    return [...this.dirty.entries()].map(([collection, id, doc]) => ({ collection: this.physical(collection), id, doc }))
  }

  /** How many documents have uncommitted changes. */
  pending(): number {
    return this.dirty.size
  }

  /**
   * Forgets the changes just staged in the store but keeps every document loaded: readers of the
   * store (this view included) do not see staged documents until they are published.
   */
  staged(): void {
    this.dirty.clear()
  }

  committed(): void {
    this.dirty.clear()
    for (const collection of this.projector.writeOnly ?? []) this.docs.drop(collection)
    if (this.docs.size > this.generationSize) {
      this.older = this.docs
      this.docs = new DocumentShelf()
    }
  }

  /** Lets go of the loaded documents and the kept derivations when nothing is waiting to be committed. */
  release(): void {
    if (this.dirty.size > 0) return
    this.docs.clear()
    this.older.clear()
    this.decodings.clear()
  }

  /** Forgets everything, committed or not: the next reads come from the store. */
  reset(): void {
    this.dirty.clear()
    this.docs.clear()
    this.older.clear()
  }
}
