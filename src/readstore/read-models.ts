import { comparePositions, type JsonObject, type Position } from '../eventlog/port.js'
import type { FindQuery, ReadStore } from './port.js'
import { physicalCollection, type Build } from './names.js'
import { buildPosition } from './build-position.js'
import { deepFreeze } from '../kernel/deep-freeze.js'
import { boundedCache } from '../kernel/bounded-cache.js'
import { ResultNotReadable } from '../kernel/errors.js'
import type { CollectionOf, DocumentTypes, ReadModelDocuments } from './documents.js'

/** What owns a collection: a projector's name, code version and the collections it writes. */
export interface ReadModelOwner {
  readonly name: string
  readonly version: number
  readonly collections: readonly string[]
}

/** Which build of each projector queries read (the projection registry). */
export interface BuildDirectory {
  cached(name: string): Promise<{ readonly active: Build } | null>
  /** What `cached` would answer without reading, when it would not read; else undefined. */
  fresh?(name: string): { readonly active: Build } | null | undefined
}

/** A projector build running in this process: what it has applied, and a wait on it. */
export interface RunningProjection {
  /** Everything at or before this position has been applied (null before the first event). */
  readonly position: Position | null
  /** Resolves true once everything up to `position` is applied, false after `timeoutMs` or a failure. */
  waitFor(position: Position, timeoutMs: number): Promise<boolean>
}

/** The projectors running in this process, by name. */
export interface RunningProjections {
  activeRunner(name: string): RunningProjection | null
}

export interface ReadModelsOptions {
  readonly store: ReadStore
  readonly projectors: readonly ReadModelOwner[]
  readonly registry: BuildDirectory
  /** The projectors running in this process, if any; else waits poll the stored checkpoints. */
  readonly projections?: RunningProjections
}

/** Positions as stamps, each written once: a query asks for the stamp of the same position many times. */
const written = new WeakMap<Position, { readonly commit: bigint; readonly prepare: bigint; readonly text: string }>()

const positionStamp = (position: Position | null): string => {
  if (position === null) return '-1/-1;'
  const known = written.get(position)
  if (known && known.commit === position.commit && known.prepare === position.prepare) return known.text
  const text = `${position.commit}/${position.prepare};`
  written.set(position, { commit: position.commit, prepare: position.prepare, text })
  return text
}

/** A kept document's key: its table and id. */
const keptKey = (table: string, id: string): string => `${table}\u0000${id}`

/** Documents kept in memory by `get`, and by `find` over all its queries, at most; the least recently used go first. */
const KEPT_DOCUMENTS = 5000
/** A field of a document, top-level or dotted. */
const valueAt = (doc: JsonObject, field: string): unknown =>
  field.split('.').reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as JsonObject)[key] : undefined), doc)

/** Query results kept in memory by `find`, at most. */
const KEPT_QUERIES = 1000

/**
 * What queries use: read models by their logical names, resolved to the active build of the
 * projector that owns them, and read-your-writes waits on that projector. `M` maps each
 * collection to its document type (a test's own projectors bring their own map).
 */
export class ReadModels<M extends DocumentTypes<M> = ReadModelDocuments> {
  private readonly owners = new Map<string, ReadModelOwner>()
  /** Kept documents by table and id (`keptKey`). */
  private readonly kept = boundedCache<string, { readonly stamp: string; readonly doc: JsonObject | null }>({ max: KEPT_DOCUMENTS })
  /** Each collection's table, with the registry entry it was named from. */
  private readonly tables = new Map<string, { readonly entry: { readonly active: Build } | null; readonly table: string }>()
  /** Query results, bounded in queries and in documents (an empty result counts as one). */
  private readonly found = boundedCache<string, { readonly stamp: string; readonly docs: readonly JsonObject[] }>({
    max: KEPT_QUERIES, maxSize: KEPT_DOCUMENTS, sizeOf: (found) => Math.max(1, found.docs.length),
  })

  constructor(private readonly options: ReadModelsOptions) {
    for (const projector of options.projectors) {
      for (const collection of projector.collections) this.owners.set(collection, projector)
    }
  }

  private owner(collection: string): ReadModelOwner {
    const projector = this.owners.get(collection)
    if (!projector) throw new TypeError(`no projector owns ${collection}`)
    return projector
  }

  /** The collection's table in the active build: at once while the registry entry is fresh. */
  private physical(collection: string): string | Promise<string> {
    const projector = this.owner(collection)
    const fresh = this.options.registry.fresh?.(projector.name)
    if (fresh !== undefined) return this.table(collection, projector, fresh)
    return this.options.registry.cached(projector.name).then((entry) => this.table(collection, projector, entry))
  }

  private table(collection: string, projector: ReadModelOwner, entry: { readonly active: Build } | null): string {
    const known = this.tables.get(collection)
    if (known && known.entry === entry) return known.table
    const table = physicalCollection(collection, entry?.active ?? { version: projector.version, build: 1 })
    this.tables.set(collection, { entry, table })
    return table
  }

  /** The kept document when the registry and the projector answer without waiting; else undefined. */
  private keptNow(collection: string, id: string): { readonly doc: JsonObject | null } | undefined {
    const projector = this.owners.get(collection)
    const entry = projector && this.options.registry.fresh?.(projector.name)
    if (projector === undefined || entry === undefined) return undefined
    const stamp = this.stampOf(collection)
    if (stamp === null) return undefined
    const kept = this.kept.get(keptKey(this.table(collection, projector, entry), id))
    return kept && kept.stamp === stamp ? kept : undefined
  }

  /** What `get` would answer without reading the store or waiting, or undefined when it would have to. */
  peek<C extends CollectionOf<M>>(collection: C, id: string): M[C] | null | undefined {
    return this.keptNow(collection, id)?.doc as M[C] | null | undefined
  }

  /**
   * One document. Where its projector runs in this process, documents read are kept (frozen) while
   * that projector stands still: any event it applies or passes makes the next read go to the store.
   */
  async get<C extends CollectionOf<M>>(collection: C, id: string): Promise<M[C] | null> {
    const known = this.physical(collection)
    const physical = typeof known === 'string' ? known : await known
    const stamp = this.stampOf(collection)
    if (stamp === null) return this.options.store.get<M[C]>(physical, id)
    const key = keptKey(physical, id)
    const kept = this.kept.get(key)
    if (kept && kept.stamp === stamp) return kept.doc as M[C] | null
    const doc = deepFreeze(await this.options.store.get<M[C]>(physical, id))
    this.kept.set(key, { stamp, doc })
    return doc
  }

  /** Documents by query; kept in memory, frozen, as `get` keeps them; the array is the caller's. */
  async find<C extends CollectionOf<M>>(collection: C, query?: FindQuery): Promise<M[C][]> {
    const known = this.physical(collection)
    const physical = typeof known === 'string' ? known : await known
    const stamp = this.stampOf(collection)
    if (stamp === null) return this.options.store.find<M[C]>(physical, query)
    const key = `${physical}\u0000${JSON.stringify(query ?? null)}`
    const kept = this.found.get(key)
    // Each caller gets its own array (which it may sort) of the shared, frozen documents: copied
    // by Array.from, since slicing a frozen array takes V8's slow path (~1 µs for 25 documents).
    if (kept && kept.stamp === stamp) return Array.from(kept.docs) as M[C][]
    const docs = deepFreeze(await this.options.store.find<M[C]>(physical, query))
    this.found.set(key, { stamp, docs })
    return Array.from(docs)
  }

  /**
   * Several documents by id, read together and not kept: for reads too large to keep, such as a
   * query's persons. With `fields`, only those fields of each (the type is then the caller's word).
   */
  async getMany<C extends CollectionOf<M>>(collection: C, ids: readonly string[], fields?: readonly string[]): Promise<Map<string, M[C]>> {
    if (ids.length === 0) return new Map()
    return this.options.store.getMany<M[C]>(await this.physical(collection), ids, fields)
  }

  /**
   * Every document a query finds, a page at a time, in the query's order (ascending fields that
   * end with a unique one, as `after` asks), each page read after the last document of the one
   * before: the whole of a large read model without offsets, without keeping what was read, and
   * without holding the store between pages.
   */
  async *pages<C extends CollectionOf<M>>(collection: C, query: Omit<FindQuery, 'after' | 'offset' | 'limit'>, size = 1000): AsyncIterable<M[C][]> {
    const orderBy = query.orderBy ?? []
    let after: FindQuery['after']
    for (;;) {
      const page = await this.options.store.find<M[C]>(await this.physical(collection), { ...query, uniqueOrder: true, limit: size, ...(after ? { after } : {}) })
      if (page.length > 0) yield page
      if (page.length < size) return
      const last = page.at(-1)!
      after = orderBy.map(([field]) => valueAt(last, field) as string | number)
    }
  }

  async count(collection: CollectionOf<M>, where?: FindQuery['where'], contains?: FindQuery['contains']): Promise<number> {
    return this.options.store.count(await this.physical(collection), where, contains)
  }

  /**
   * A stamp of what the projectors owning `collections` have applied, which changes whenever any
   * of them applies or skips past an event: what was read under one stamp is still what they hold
   * while the stamp stays the same. Null when those projectors do not run in this process.
   */
  stamp(collections: readonly string[]): string | null {
    let stamp = ''
    for (const collection of collections) {
      const one = this.stampOf(collection)
      if (one === null) return null
      stamp += one
    }
    return stamp
  }

  private stampOf(collection: string): string | null {
    const handle = this.options.projections?.activeRunner(this.owner(collection).name)
    return handle ? positionStamp(handle.position) : null
  }

  /**
   * Read-your-writes: the document as it stands once its projector has applied `position` (the
   * position of the command's last event; null when the command changed nothing).
   */
  async settled<C extends CollectionOf<M>>(position: Position | null, collection: C, id: string): Promise<M[C] | null> {
    // The change is in the log; answering "not found" now would invite a client to write it again.
    if (position && !(await this.waitFor(position, [collection]))) throw new ResultNotReadable()
    return this.get(collection, id)
  }

  /**
   * Waits until the projectors owning `collections` have applied everything up to `position`;
   * resolves false after `timeoutMs` so a caller can answer anyway.
   */
  async waitFor(position: Position, collections: readonly string[], timeoutMs = 5000): Promise<boolean> {
    const projectors = [...new Set(collections.map((c) => this.owner(c)))]
    const results = await Promise.all(projectors.map((projector) => this.waitForProjector(projector, position, timeoutMs)))
    return results.every(Boolean)
  }

  private async waitForProjector(projector: ReadModelOwner, position: Position, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    const local = this.options.projections?.activeRunner(projector.name)
    if (local) {
      if (await local.waitFor(position, timeoutMs)) return true
      // A rebuild may have switched builds while we waited: the old runner let its waiters go.
      const now = this.options.projections?.activeRunner(projector.name)
      return !!now && now !== local && now.waitFor(position, Math.max(0, deadline - Date.now()))
    }
    for (;;) {
      const entry = await this.options.registry.cached(projector.name)
      const build = entry?.active ?? { version: projector.version, build: 1 }
      const stored = await buildPosition(this.options.store, projector.name, build)
      if (stored && comparePositions(stored, position) >= 0) return true
      if (Date.now() >= deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
