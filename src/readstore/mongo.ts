import {
  MongoClient, MongoServerError, type AnyBulkWriteOperation, type ClientSession, type Collection, type Db, type Filter,
} from 'mongodb'
import type { JsonObject, Position } from '../eventlog/port.js'
import {
  CheckpointConflict, DocumentRefused, assertCollection, type CommitBatch, type DocumentChange, type FindQuery, type ReadStore, type StagingKey,
} from './port.js'
import { storedPath, toStored, type StoredDocument } from './mongo-keys.js'
import { fieldsProjection, filterOf, findOptionsOf } from './mongo-query.js'
import { mongoTimeoutOptions, type MongoTimeouts } from './mongo-timeouts.js'
import { documentRefusal, refusalOf, refusedIndex } from './mongo-refusal.js'
import {
  OF, STAGED, foldOperations, idOf, stagingOperations, tagOf, visibleOnly, visibleWithId, withoutMarkers, type StagingDocument,
} from './mongo-staging.js'

/** Positions as decimal strings: exact beyond 2^53 without asking the driver for bigints. */
interface CheckpointDocument {
  _id: string
  commit: string
  prepare: string
}

/** The configured MongoDB cannot hold read models: said in one line at start-up. */
export class NotAReplicaSet extends Error {
  override name = 'NotAReplicaSet'
}

/** A connection string without its password, to print. */
const redactedUrl = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')

interface LeaseDocument {
  _id: string
  owner: string
  /** On the server's clock. */
  expiresAt: Date
}

const DUPLICATE_KEY = 11000
const NAMESPACE_NOT_FOUND = 26
const NAMESPACE_EXISTS = 48
const PAGE = 500
const RESERVED = new Set(['checkpoints', 'leases', 'staging'])
/** Staged versions folded into their documents per transaction. */
const FOLD_PAGE = 500

const hasCode = (error: unknown, code: number): boolean => error instanceof MongoServerError && error.code === code

const checkpointPosition = (doc: CheckpointDocument): Position => ({ commit: BigInt(doc.commit), prepare: BigInt(doc.prepare) })

/**
 * Read models in MongoDB: one collection per read-model collection, documents `{_id: id, ...}`
 * with escaped keys, and the projection checkpoints in `checkpoints`, so that "write documents
 * and move the checkpoint" is one transaction. Transactions need a replica set (one node will do).
 */
export class MongoReadStore implements ReadStore {
  readonly kind = 'mongodb' as const
  private readonly created = new Set<string>()

  private constructor(private readonly client: MongoClient, private readonly db: Db, private readonly url: string) {}

  /**
   * The store without connecting: the driver connects on the first operation, and each operation
   * waits at most as `timeouts` say for a server. `verify` checks the server once it answers.
   */
  static open(url: string, databaseName = 'hedgelog', timeouts?: MongoTimeouts): MongoReadStore {
    const client = new MongoClient(url, timeouts ? mongoTimeoutOptions(url, timeouts) : {})
    return new MongoReadStore(client, client.db(databaseName), redactedUrl(url))
  }

  /** Connects and checks the server (see `verify`); closes the client when either fails. */
  static async connect(url: string, databaseName = 'hedgelog', timeouts?: MongoTimeouts): Promise<MongoReadStore> {
    const store = MongoReadStore.open(url, databaseName, timeouts)
    try {
      await store.verify()
      return store
    } catch (error) {
      await store.close()
      throw error
    }
  }

  /**
   * Checks that the server is a replica set member (`hello` reports `setName`): read models and
   * their checkpoint are written in one transaction, which a standalone server refuses on every
   * commit. Fails as the driver does while no server answers.
   */
  async verify(): Promise<void> {
    const hello = await this.client.db('admin').command({ hello: 1 })
    if (typeof hello['setName'] !== 'string') {
      throw new NotAReplicaSet(`MongoDB at ${this.url} is not a replica set member (hello reports no setName): Hedgelog needs a replica set for transactions; start mongod with --replSet and rs.initiate()`)
    }
  }

  private collection(name: string): Collection<StoredDocument> {
    assertCollection(name)
    if (RESERVED.has(name)) throw new TypeError(`collection name is reserved for the store itself: ${name}`)
    return this.db.collection<StoredDocument>(name)
  }

  private get checkpoints(): Collection<CheckpointDocument> {
    return this.db.collection<CheckpointDocument>('checkpoints')
  }

  private get leases(): Collection<LeaseDocument> {
    return this.db.collection<LeaseDocument>('leases')
  }

  private get staging(): Collection<StagingDocument> {
    return this.db.collection<StagingDocument>('staging')
  }

  /**
   * Runs a read in a snapshot session: the published tags and the documents are read at one point
   * in time, so a fold that runs meanwhile cannot show a reader part of an import.
   */
  private async snapshot<T>(read: (published: string[], session: ClientSession) => Promise<T>): Promise<T> {
    return this.client.withSession({ snapshot: true }, async (session) => {
      const tags = await this.staging.find({ published: true }, { projection: { _id: 1 }, session }).toArray()
      return read(tags.map((tag) => tag._id), session)
    })
  }

  async get<T extends JsonObject = JsonObject>(collection: string, id: string): Promise<T | null> {
    const target = this.collection(collection)
    const doc = await this.snapshot((published, session) => target.findOne(visibleWithId(id, published), { session }))
    return doc === null ? null : withoutMarkers<T>(doc)
  }

  async getMany<T extends JsonObject = JsonObject>(collection: string, ids: readonly string[], fields?: readonly string[]): Promise<Map<string, T>> {
    const found = new Map<string, T>()
    if (ids.length === 0) return found
    const target = this.collection(collection)
    // A staged version names its document in a marker, which the projection keeps for `idOf`.
    const projection = fields === undefined ? {} : { projection: { [OF]: 1, ...fieldsProjection(fields) } }
    const docs = await this.snapshot((published, session) => target.find(visibleWithId({ $in: [...ids] }, published), { ...projection, session }).toArray())
    for (const doc of docs) found.set(idOf(doc), withoutMarkers<T>(doc))
    return found
  }

  async find<T extends JsonObject = JsonObject>(collection: string, query: FindQuery = {}): Promise<T[]> {
    const target = this.collection(collection)
    const options = findOptionsOf(query)
    if (options === null) return []
    const docs = await this.snapshot((published, session) =>
      target.find(visibleOnly(filterOf(query), published), { ...options, session }).toArray())
    return docs.map((doc) => withoutMarkers<T>(doc))
  }

  async count(collection: string, where?: FindQuery['where'], contains?: FindQuery['contains']): Promise<number> {
    const target = this.collection(collection)
    return this.snapshot((published, session) => target.countDocuments(visibleOnly(filterOf({ where, contains }), published), { session }))
  }

  /** Pages by id rather than holding one cursor open, which the server would time out when idle. */
  async *scan(collection: string): AsyncIterable<{ id: string; doc: JsonObject }> {
    const target = this.collection(collection)
    let after: string | null = null
    for (;;) {
      const filter: Filter<StoredDocument> = after === null ? {} : { _id: { $gt: after } }
      const page = await this.snapshot((published, session) =>
        target.find(visibleOnly(filter, published), { session }).sort({ _id: 1 }).limit(PAGE).toArray())
      for (const doc of page) yield { id: idOf(doc), doc: withoutMarkers(doc) }
      if (page.length < PAGE) return
      after = page.at(-1)!._id
    }
  }

  /**
   * Writes each change as a staged version beside its document (see mongo-staging.ts), outside any
   * transaction: nothing staged is visible, so a part cut short shows readers nothing.
   */
  async stage(key: StagingKey, changes: readonly DocumentChange[]): Promise<void> {
    await this.finishPublished()
    const tag = tagOf(key)
    const byCollection = new Map<string, { change: DocumentChange; stored: Record<string, unknown> | null }[]>()
    for (const change of changes) {
      const stored = storedOf(change)
      const list = byCollection.get(change.collection) ?? []
      list.push({ change, stored })
      byCollection.set(change.collection, list)
    }
    const names = [...byCollection.keys()]
    for (const name of names) this.collection(name)
    await this.createCollections(names)
    for (const name of names) await this.ensureStagingIndexes(name)
    await this.staging.updateOne(
      { _id: tag },
      { $setOnInsert: { group: key.group, attempt: key.attempt, published: false }, $addToSet: { collections: { $each: names } } },
      { upsert: true },
    )
    for (const [name, list] of byCollection) {
      const operations = stagingOperations(list, tag)
      try {
        await this.collection(name).bulkWrite(operations, { ordered: true })
      } catch (error) {
        const reason = refusalOf(error)
        if (reason === null) throw error
        throw new DocumentRefused(name, list[Math.floor((refusedIndex(error) ?? 0) / 2)]?.change.id ?? '?', reason)
      }
    }
  }

  private readonly indexed = new Set<string>()

  private async ensureStagingIndexes(name: string): Promise<void> {
    if (this.indexed.has(name)) return
    await this.collection(name).createIndex({ [OF]: 1 }, { sparse: true })
    await this.collection(name).createIndex({ [STAGED]: 1 }, { sparse: true })
    this.indexed.add(name)
  }

  /**
   * Folds the published versions of `tag` into their documents, a bounded transaction per page,
   * then forgets the tag. Readers see the same before, during and after, so it may stop anywhere
   * and run again.
   */
  private async fold(tag: string): Promise<void> {
    const entry = await this.staging.findOne({ _id: tag, published: true })
    if (entry === null) return
    for (const name of entry.collections) {
      const target = this.collection(name)
      for (;;) {
        const versions = await target.find({ [STAGED]: tag }).limit(FOLD_PAGE).toArray()
        if (versions.length === 0) break
        await this.client.withSession((session) => session.withTransaction(
          () => target.bulkWrite(foldOperations(versions), { ordered: true, session }),
          { writeConcern: { w: 'majority' } },
        ))
      }
    }
    await this.discard({ group: entry.group, _id: { $ne: tag } })
    await this.staging.deleteOne({ _id: tag })
  }

  /** Removes unpublished attempts: their versions, then their entries. */
  private async discard(filter: Filter<StagingDocument>): Promise<void> {
    for (const entry of await this.staging.find({ ...filter, published: false }).toArray()) {
      for (const name of entry.collections) await this.collection(name).deleteMany({ [STAGED]: entry._id })
      await this.staging.deleteOne({ _id: entry._id, published: false })
    }
  }

  /** Folds what a commit published but a stopped process did not fold. */
  private async finishPublished(): Promise<void> {
    for (const entry of await this.staging.find({ published: true }, { projection: { _id: 1 } }).toArray()) await this.fold(entry._id)
  }

  /**
   * One transaction: the checkpoint compare-and-set first (a competing writer then conflicts
   * before any document is touched), then one ordered bulk write per collection. withTransaction
   * may run the callback again on transient errors, so it only touches the database, in sequence.
   */
  /**
   * A document MongoDB can never hold (deeper than 100 levels, larger than 16 MiB) is refused as
   * DocumentRefused before the transaction, and so is the server's own refusal of one, so that
   * the projector runtime quarantines the event instead of retrying the commit forever.
   */
  /**
   * Publishing a staged key adds one entry's flag to the transaction, whatever was staged; the
   * versions are folded into their documents after it, in bounded transactions.
   */
  async commit(batch: CommitBatch): Promise<void> {
    const writes = groupByCollection(batch.changes)
    const targets = [...writes.keys()].map((name) => this.collection(name))
    await this.createCollections(['checkpoints', 'staging', ...writes.keys()])
    const publish = batch.publish ? tagOf(batch.publish) : null
    let writing: string | null = null
    try {
      await this.client.withSession((session) => session.withTransaction(async () => {
        await this.moveCheckpoint(batch, session)
        if (publish !== null) {
          const published = await this.staging.updateOne({ _id: publish, published: false }, { $set: { published: true } }, { session })
          if (published.matchedCount === 0) throw new CheckpointConflict(batch.checkpoint)
        }
        for (const target of targets) {
          writing = target.collectionName
          await target.bulkWrite(writes.get(target.collectionName)!, { ordered: true, session })
        }
        // Majority, so that a failover cannot roll back documents that readers have already seen.
      }, { writeConcern: { w: 'majority' } }))
    } catch (error) {
      const reason = refusalOf(error)
      if (reason === null) throw error
      const collection: string = writing ?? '?'
      const operation = writes.get(collection)?.[refusedIndex(error) ?? 0]
      const id = operation && 'replaceOne' in operation ? String(operation.replaceOne.filter._id) : '?'
      throw new DocumentRefused(collection, id, reason)
    }
    // Readers already see the import whole; a fold cut short here is finished before the next staging.
    if (publish !== null) await this.fold(publish).catch(() => undefined)
  }

  private async moveCheckpoint(batch: CommitBatch, session: ClientSession): Promise<void> {
    const next = { commit: batch.next.commit.toString(), prepare: batch.next.prepare.toString() }
    if (batch.expected === null) {
      try {
        await this.checkpoints.insertOne({ _id: batch.checkpoint, ...next }, { session })
      } catch (error) {
        throw hasCode(error, DUPLICATE_KEY) ? new CheckpointConflict(batch.checkpoint) : error
      }
      return
    }
    const expected = { commit: batch.expected.commit.toString(), prepare: batch.expected.prepare.toString() }
    const moved = await this.checkpoints.updateOne({ _id: batch.checkpoint, ...expected }, { $set: next }, { session })
    if (moved.matchedCount === 0) throw new CheckpointConflict(batch.checkpoint)
  }

  /** Collections are created outside transactions: creating one inside may conflict and abort. */
  private async createCollections(names: Iterable<string>): Promise<void> {
    for (const name of names) {
      if (this.created.has(name)) continue
      try {
        await this.db.createCollection(name)
      } catch (error) {
        if (!hasCode(error, NAMESPACE_EXISTS)) throw error
      }
      this.created.add(name)
    }
  }

  async checkpoint(name: string): Promise<Position | null> {
    const doc = await this.checkpoints.findOne({ _id: name })
    return doc === null ? null : checkpointPosition(doc)
  }

  async ensureIndex(collection: string, fields: readonly string[]): Promise<void> {
    await this.collection(collection).createIndex(Object.fromEntries(fields.map((field) => [storedPath(field), 1])))
    this.created.add(collection)
  }

  async dropCollection(collection: string): Promise<void> {
    try {
      await this.collection(collection).drop()
    } catch (error) {
      if (!hasCode(error, NAMESPACE_NOT_FOUND)) throw error
    }
    this.created.delete(collection)
  }

  /** A live lease of another owner makes the upsert insert a second `_id`: that is "not acquired". */
  /**
   * Expiry is reckoned on the server's clock (`$$NOW` in an update pipeline), so processes on hosts
   * with skewed clocks cannot both hold a lease. Only a real server runs this pipeline (contract
   * suite with HEDGELOG_TEST_MONGO_URL).
   */
  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    try {
      const taken = await this.leases.updateOne(
        { _id: name, $or: [{ owner }, { $expr: { $lte: ['$expiresAt', '$$NOW'] } }] },
        [{ $set: { owner, expiresAt: { $add: ['$$NOW', ttlMs] } } }],
        { upsert: true },
      )
      return taken.matchedCount + taken.upsertedCount === 1
    } catch (error) {
      if (hasCode(error, DUPLICATE_KEY)) return false
      throw error
    }
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, owner })
  }

  async close(): Promise<void> {
    await this.client.close()
  }
}

/** The change's document as stored, or null for a deletion; DocumentRefused when MongoDB could never hold it. */
const storedOf = (change: DocumentChange): Record<string, unknown> | null => {
  const stored = change.doc === null ? null : toStored(change.doc)
  const refusal = stored === null ? null : documentRefusal({ _id: change.id, ...stored })
  if (refusal !== null) throw new DocumentRefused(change.collection, change.id, refusal)
  return stored
}

const groupByCollection = (changes: readonly DocumentChange[]): Map<string, AnyBulkWriteOperation<StoredDocument>[]> => {
  const writes = new Map<string, AnyBulkWriteOperation<StoredDocument>[]>()
  for (const change of changes) {
    const stored = storedOf(change)
    const operation: AnyBulkWriteOperation<StoredDocument> = stored === null
      ? { deleteOne: { filter: { _id: change.id } } }
      : { replaceOne: { filter: { _id: change.id }, replacement: stored, upsert: true } }
    const list = writes.get(change.collection) ?? []
    list.push(operation)
    writes.set(change.collection, list)
  }
  return writes
}
