import type { JsonObject, Position } from '../eventlog/port.js'

export type Scalar = string | number | boolean | null

/** Bounds on one field. A string bound holds only for strings and compares them as text; a number bound only for numbers. */
export interface Bounds {
  readonly gt?: string | number
  readonly gte?: string | number
  readonly lt?: string | number
  readonly lte?: string | number
}

export interface FindQuery {
  /** Equality on top-level or dotted fields; every entry must hold. */
  readonly where?: Readonly<Record<string, Scalar>>
  /** Bounds on top-level or dotted fields; every bound must hold. */
  readonly range?: Readonly<Record<string, Bounds>>
  /** Fields whose value must equal one of the given strings or numbers (an empty list holds for none). */
  readonly oneOf?: Readonly<Record<string, readonly (string | number)[]>>
  /** Array fields (top-level or dotted) that must each hold the given string among their items. */
  readonly contains?: Readonly<Record<string, string>>
  readonly orderBy?: readonly (readonly [field: string, direction: 'asc' | 'desc'])[]
  readonly limit?: number
  readonly offset?: number
  /**
   * Only documents after this place in the query's order: one value per `orderBy` field, compared
   * field by field. Pages read this way cost the same however deep they go. Every `orderBy`
   * direction must be ascending, each field must hold values of one type (strings, or numbers),
   * and together the fields must tell documents apart (end with a unique one), or documents tied
   * on all of them at a page's end are skipped.
   */
  readonly after?: readonly (string | number)[]
  /**
   * The `orderBy` fields tell every document apart (they end with a unique one, as `after` asks),
   * so the store orders by nothing else: no tie-break by id, and an index on exactly those fields
   * gives the order without sorting.
   */
  readonly uniqueOrder?: boolean
  /**
   * Only these fields of each document, top-level or dotted through objects (not through
   * arrays), nested as in the document; a field the document lacks is left out. Default: the
   * whole document.
   */
  readonly fields?: readonly string[]
}

/** One document to write (`doc`) or delete (`doc: null`). */
export interface DocumentChange {
  readonly collection: string
  readonly id: string
  readonly doc: JsonObject | null
}

export interface CommitBatch {
  /** Whose checkpoint moves, e.g. `dashboards@v1#1`. */
  readonly checkpoint: string
  /** The checkpoint this writer last saw; null when it has none yet. A mismatch aborts. */
  readonly expected: Position | null
  readonly next: Position
  readonly changes: readonly DocumentChange[]
  /**
   * Makes everything staged under this key visible in the same atomic step, after `changes`
   * (which must not touch a staged document), and discards what other attempts staged for the
   * same `group`.
   */
  readonly publish?: StagingKey
}

/**
 * Where a large change is staged before it is published: `group` names what is being applied
 * (one import for one checkpoint), `attempt` one try at applying it. Attempts of one group never
 * mix: a try cut short leaves its parts unpublished, and the next try stages under a new attempt.
 */
export interface StagingKey {
  readonly group: string
  readonly attempt: string
}

/**
 * The read-model store port: JSON documents in named collections, plus projection checkpoints.
 * Collection names are lowercase identifiers (`[a-z][a-z0-9_]*`); ids are strings.
 */
export interface ReadStore {
  readonly kind: 'sqlite' | 'mongodb'
  get<T extends JsonObject = JsonObject>(collection: string, id: string): Promise<T | null>
  /**
   * The documents of `ids` that exist, by id, read together: what `get` gives for each, in one
   * round trip; with `fields`, only those fields of each, as `find` gives them.
   */
  getMany<T extends JsonObject = JsonObject>(collection: string, ids: readonly string[], fields?: readonly string[]): Promise<Map<string, T>>
  find<T extends JsonObject = JsonObject>(collection: string, query?: FindQuery): Promise<T[]>
  count(collection: string, where?: FindQuery['where'], contains?: FindQuery['contains']): Promise<number>
  /** Every document of a collection in ascending id order, for digests and audits. */
  scan(collection: string): AsyncIterable<{ id: string; doc: JsonObject }>
  /**
   * Writes the changed documents and moves the checkpoint from `expected` to `next`, atomically.
   * Throws CheckpointConflict (and writes nothing) when the stored checkpoint is not `expected`.
   */
  commit(batch: CommitBatch): Promise<void>
  /**
   * Writes part of a change under `key`, where no reader sees it (get, find, count and scan read
   * as if it were not there) until a commit publishes the key. Parts of one key are applied in the
   * order they were staged; each call is bounded by what it is given.
   */
  stage(key: StagingKey, changes: readonly DocumentChange[]): Promise<void>
  checkpoint(name: string): Promise<Position | null>
  /**
   * Idempotent; called at start-up, before commits, or by a build beside the live one once it has
   * caught up: the documents already stored are indexed too.
   */
  ensureIndex(collection: string, fields: readonly string[]): Promise<void>
  /**
   * Idempotent; readies what `ensureIndex` with the same fields will need, without creating the
   * index, so that creating it later over many documents only sorts them. The embedded store adds
   * the fields' columns, written with every document from then on; a store that needs nothing
   * beside the index leaves it out.
   */
  prepareIndex?(collection: string, fields: readonly string[]): Promise<void>
  dropCollection(collection: string): Promise<void>
  /**
   * Takes or renews a lease; true when `owner` holds it for `ttlMs` from now. Expiry is reckoned
   * on the store's clock (the server's for MongoDB, the host's for the embedded file, which every
   * process using it shares), never on a caller's.
   */
  acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean>
  releaseLease(name: string, owner: string): Promise<void>
  close(): Promise<void>
}

/** The store can never hold this document (too deep, too large, malformed): retrying cannot help. */
export class DocumentRefused extends Error {
  constructor(readonly collection: string, readonly id: string, reason: string) {
    super(`${collection}/${id} refused by the read store: ${reason}`)
    this.name = 'DocumentRefused'
  }
}

/**
 * The deepest document every read store holds: MongoDB refuses documents nested deeper than 100
 * levels, and the embedded store refuses them too, so both make the same decisions.
 */
export const MAX_DOCUMENT_DEPTH = 100

export class CheckpointConflict extends Error {
  override name = 'CheckpointConflict'
  constructor(readonly checkpointName: string) {
    super(`Checkpoint ${checkpointName} moved under this writer`)
  }
}

const COLLECTION = /^[a-z][a-z0-9_]*$/
const FIELD = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/

export const assertCollection = (name: string): void => {
  if (!COLLECTION.test(name) || name.length > 100) throw new TypeError(`invalid collection name: ${name}`)
}

export const assertField = (name: string): void => {
  if (!FIELD.test(name)) throw new TypeError(`invalid field name: ${name}`)
}
