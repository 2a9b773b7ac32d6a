import type { JsonObject, RecordedEvent } from '../src/eventlog/port.js'
import type { DocumentChange, ReadStore } from '../src/readstore/port.js'
import type { DocumentRef, ProjectionView, Projector } from './projector.js'
import { DecodedEvents } from './decoded-events.js'
import { deepFreeze } from '../src/kernel/deep-freeze.js'

/** `apply` asked for a document that is not loaded yet. */
class NeedDocument {
  constructor(readonly collection: string, readonly id: string) {}
}

/** The projector's own code threw on an event: retrying the same event cannot help. */
export class ProjectorFailed extends Error {
  constructor(readonly event: RecordedEvent, override readonly cause: unknown) {
    super('projector failed', { cause })
  }
}

const CACHE_LIMIT = 50_000

const keyOf = (collection: string, id: string): string => `${collection}\u0000${id}`

/**
 * The documents one runner has loaded or changed, and the changes it has not committed yet. Each
 * event is applied to a staging layer first and merged only when `apply` returns, so an event the
 * projector fails on leaves no trace. The runner is the only writer of its collections, so what it
 * committed stays valid between batches.
 */
export class StagedView {
  private readonly docs = new Map<string, JsonObject | null>()
  private readonly dirty = new Set<string>()
  /** What the event being applied has changed so far; merged only when `apply` returns. */
  private readonly staging = new Map<string, JsonObject | null>()
  /** The projector's view of the documents, made once: it reads the staging layer first. */
  private readonly access: ProjectionView

  constructor(
    private readonly projector: Projector,
    private readonly store: ReadStore,
    private readonly physical: (collection: string) => string,
    private readonly decodings: DecodedEvents = new DecodedEvents(),
  ) {
    const staged = this.staging
    this.access = {
      get: <T extends JsonObject>(collection: string, id: string) => {
        const key = this.owned(collection, id)
        const changed = staged.get(key)
        if (changed !== undefined || staged.has(key)) return changed as T | null
        const loaded = this.docs.get(key)
        if (loaded !== undefined || this.docs.has(key)) return loaded as T | null
        throw new NeedDocument(collection, id)
      },
      put: (collection, id, doc) => { staged.set(this.owned(collection, id), deepFreeze(doc)) },
      delete: (collection, id) => { staged.set(this.owned(collection, id), null) },
      decoded: (of, name, derive) => this.decodings.get(of, name, derive),
    }
  }

  private owned(collection: string, id: string): string {
    if (!this.projector.collections.includes(collection)) throw new TypeError(`${this.projector.name} does not own ${collection}`)
    return keyOf(collection, id)
  }

  private async load(collection: string, id: string): Promise<void> {
    const key = keyOf(collection, id)
    if (!this.docs.has(key)) this.docs.set(key, deepFreeze(await this.store.get(this.physical(collection), id)))
  }

  /** Loads what the projector says it will read, a few rounds at most; `apply` loads any rest. */
  private async prefetch(event: RecordedEvent): Promise<void> {
    const peek = (collection: string, id: string): JsonObject | null | undefined => this.docs.get(keyOf(collection, id))
    for (let round = 0; round < 4; round++) {
      let wanted: DocumentRef[]
      try {
        wanted = [...this.projector.prefetch!(event, peek)].filter(([collection, id]) => !this.docs.has(this.owned(collection, id)))
      } catch (error) {
        throw new ProjectorFailed(event, error)
      }
      if (wanted.length === 0) return
      for (const [collection, id] of wanted) await this.load(collection, id)
    }
  }

  /** Applies one event; throws ProjectorFailed, with nothing changed, when the projector throws. */
  async apply(event: RecordedEvent): Promise<void> {
    if (this.projector.prefetch) await this.prefetch(event)
    const staged = this.staging
    for (;;) {
      staged.clear()
      try {
        this.projector.apply(this.access, event)
      } catch (error) {
        if (!(error instanceof NeedDocument)) {
          staged.clear()
          throw new ProjectorFailed(event, error)
        }
        await this.load(error.collection, error.id)
        continue
      }
      for (const [key, doc] of staged) {
        this.docs.set(key, doc)
        this.dirty.add(key)
      }
      staged.clear()
      return
    }
  }

  /** The uncommitted changes, in the store's collection names; `committed` forgets them. */
  changes(): DocumentChange[] {
    return [...this.dirty].map((key) => {
      const [collection, id] = key.split('\u0000') as [string, string]
      return { collection: this.physical(collection), id, doc: this.docs.get(key) ?? null }
    })
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
    if (this.docs.size > CACHE_LIMIT) this.docs.clear()
  }

  /** Lets go of the loaded documents and the kept derivations when nothing is waiting to be committed. */
  release(): void {
    if (this.dirty.size > 0) return
    this.docs.clear()
    this.decodings.clear()
  }

  /** Forgets everything, committed or not: the next reads come from the store. */
  reset(): void {
    this.dirty.clear()
    this.docs.clear()
  }
}
