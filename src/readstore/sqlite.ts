import type { JsonObject, Position } from '../eventlog/port.js'
import type { CommitBatch, DocumentChange, FindQuery, ReadStore, StagingKey } from './port.js'
import { SqliteFile, type SqliteFileOptions } from './sqlite-file.js'
import { QUARANTINE } from './names.js'
import { ShardMap, shardPath, type BuildInFile, type OwnFiles } from './sqlite-shards.js'

export interface SqliteReadStoreOptions extends SqliteFileOptions {
  /** Opens each file (the main one at `path`, the others beside it); by default a plain `SqliteFile`. */
  readonly openFile?: (options: SqliteFileOptions) => SqliteFile
  /** The projections whose read models live in files of their own; none by default (everything in the main file). */
  readonly ownFiles?: OwnFiles
}

const compare = (a: unknown, b: unknown): number => (a === b ? 0 : a === undefined || a === null ? -1 : b === undefined || b === null ? 1 : a < b ? -1 : a > b ? 1 : 0)
const byId = (a: { id: string }, b: { id: string }): number => compare(a.id, b.id)

const valueAt = (doc: JsonObject, field: string): unknown =>
  field.split('.').reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as JsonObject)[key] : undefined), doc)

/** Orders documents of several files as one query would: by `orderBy`, then by id. */
const ordering = (orderBy: FindQuery['orderBy'] = []) => (a: JsonObject, b: JsonObject): number => {
  for (const [field, direction] of orderBy) {
    const order = compare(valueAt(a, field), valueAt(b, field))
    if (order !== 0) return direction === 'desc' ? -order : order
  }
  return compare(a['id'], b['id'])
}

/**
 * The embedded read store: SQLite files in one directory, the main one at `path` and one beside it
 * for each projection of `ownFiles`. Every call goes to the file that holds what it names:
 * a collection, a checkpoint, a staging group. Quarantined events are kept in the file of the build
 * that skipped them and read from there by checkpoint, or from every file.
 */
export class SqliteReadStore implements ReadStore {
  readonly kind = 'sqlite' as const
  private readonly main: SqliteFile
  private readonly shards = new Map<string, SqliteFile>()
  private readonly files: readonly SqliteFile[]
  /** Per build (`<shard><suffix>`), the file it lives in; decided once, since builds never move. */
  private readonly builds = new Map<string, SqliteFile>()
  /** Per collection or checkpoint name, its file: every change of every commit is routed. */
  private readonly routes = new Map<string, SqliteFile>()

  private readonly shardMap: ShardMap

  /** Every file of a store whose main file is at `path`. */
  static paths(path: string, ownFiles: OwnFiles = {}): string[] {
    return [path, ...Object.keys(ownFiles).map((shard) => shardPath(path, shard))]
  }

  constructor(options: SqliteReadStoreOptions) {
    const { openFile = (fileOptions: SqliteFileOptions) => new SqliteFile(fileOptions), ownFiles = {}, ...fileOptions } = options
    this.shardMap = new ShardMap(ownFiles)
    this.main = openFile(fileOptions)
    try {
      for (const shard of Object.keys(ownFiles)) this.shards.set(shard, openFile({ ...fileOptions, path: shardPath(options.path, shard) }))
    } catch (error) {
      for (const file of [this.main, ...this.shards.values()]) void file.close()
      throw error
    }
    this.files = [this.main, ...this.shards.values()]
  }

  private fileOfBuild(build: BuildInFile | null): SqliteFile {
    if (build === null) return this.main
    const key = `${build.shard}${build.suffix}`
    let file = this.builds.get(key)
    if (!file) {
      file = this.main.hasCollection(this.shardMap.anchorOf(build)) ? this.main : this.shards.get(build.shard)!
      this.builds.set(key, file)
    }
    return file
  }

  private routed(name: string, buildOf: (name: string) => BuildInFile | null): SqliteFile {
    let file = this.routes.get(name)
    if (!file) this.routes.set(name, file = this.fileOfBuild(buildOf(name)))
    return file
  }

  private fileOfCollection(collection: string): SqliteFile {
    return this.routed(collection, (name) => this.shardMap.buildOfCollection(name))
  }

  private fileOfCheckpoint(checkpoint: string): SqliteFile {
    return this.routed(checkpoint, (name) => this.shardMap.buildOfCheckpoint(name))
  }

  /** The one file a quarantine query is about, when it names a checkpoint; else every file. */
  private quarantineFiles(checkpoint: unknown): readonly SqliteFile[] {
    return typeof checkpoint === 'string' ? [this.fileOfCheckpoint(checkpoint)] : this.files
  }

  async get<T extends JsonObject = JsonObject>(collection: string, id: string): Promise<T | null> {
    if (collection !== QUARANTINE) return this.fileOfCollection(collection).get<T>(collection, id)
    for (const file of this.files) {
      const doc = await file.get<T>(collection, id)
      if (doc !== null) return doc
    }
    return null
  }

  async getMany<T extends JsonObject = JsonObject>(collection: string, ids: readonly string[], fields?: readonly string[]): Promise<Map<string, T>> {
    if (collection !== QUARANTINE) return this.fileOfCollection(collection).getMany<T>(collection, ids, fields)
    const found = new Map<string, T>()
    for (const file of this.files) for (const [id, doc] of await file.getMany<T>(collection, ids, fields)) found.set(id, doc)
    return found
  }

  async find<T extends JsonObject = JsonObject>(collection: string, query: FindQuery = {}): Promise<T[]> {
    if (collection !== QUARANTINE) return this.fileOfCollection(collection).find<T>(collection, query)
    const files = this.quarantineFiles(query.where?.['checkpoint'])
    if (files.length === 1) return files[0]!.find<T>(collection, query)
    // Quarantine records of every file, as one collection would give them.
    const { limit, offset = 0, ...rest } = query
    const parts = await Promise.all(files.map((file) => file.find<T>(collection, { ...rest, ...(limit === undefined ? {} : { limit: limit + offset }) })))
    const merged = parts.flat().sort(ordering(query.orderBy))
    return merged.slice(offset, limit === undefined ? undefined : offset + limit)
  }

  async count(collection: string, where?: FindQuery['where'], contains?: FindQuery['contains']): Promise<number> {
    if (collection !== QUARANTINE) return this.fileOfCollection(collection).count(collection, where, contains)
    let total = 0
    for (const file of this.quarantineFiles(where?.['checkpoint'])) total += await file.count(collection, where, contains)
    return total
  }

  async *scan(collection: string): AsyncIterable<{ id: string; doc: JsonObject }> {
    if (collection !== QUARANTINE) {
      yield* this.fileOfCollection(collection).scan(collection)
      return
    }
    const all: { id: string; doc: JsonObject }[] = []
    for (const file of this.files) for await (const entry of file.scan(collection)) all.push(entry)
    yield* all.sort(byId)
  }

  /** `file`, the one a batch of changes for `checkpoint` goes to, once every change is found to belong there. */
  private holding(file: SqliteFile, checkpoint: string, changes: readonly DocumentChange[]): SqliteFile {
    for (const change of changes) {
      if (change.collection !== QUARANTINE && this.fileOfCollection(change.collection) !== file) {
        throw new TypeError(`${change.collection} is not kept with the checkpoint ${checkpoint}`)
      }
    }
    return file
  }

  async commit(batch: CommitBatch): Promise<void> {
    return this.holding(this.fileOfCheckpoint(batch.checkpoint), batch.checkpoint, batch.changes).commit(batch)
  }

  /** A staging group names one import of one build: routed by its build, not remembered by its name. */
  async stage(key: StagingKey, changes: readonly DocumentChange[]): Promise<void> {
    return this.holding(this.fileOfBuild(this.shardMap.buildOfCheckpoint(key.group)), key.group, changes).stage(key, changes)
  }

  async checkpoint(name: string): Promise<Position | null> {
    return this.fileOfCheckpoint(name).checkpoint(name)
  }

  async prepareIndex(collection: string, fields: readonly string[]): Promise<void> {
    return this.fileOfCollection(collection).prepareIndex(collection, fields)
  }

  async ensureIndex(collection: string, fields: readonly string[]): Promise<void> {
    if (collection !== QUARANTINE) return this.fileOfCollection(collection).ensureIndex(collection, fields)
    for (const file of this.files) await file.ensureIndex(collection, fields)
  }

  async dropCollection(collection: string): Promise<void> {
    if (collection !== QUARANTINE) return this.fileOfCollection(collection).dropCollection(collection)
    for (const file of this.files) await file.dropCollection(collection)
  }

  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.main.acquireLease(name, owner, ttlMs)
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    return this.main.releaseLease(name, owner)
  }

  async close(): Promise<void> {
    for (const file of this.files) await file.close()
  }
}
