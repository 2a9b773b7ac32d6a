import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { JsonObject, Position } from '../eventlog/port.js'
import { nestsDeeperThan } from '../kernel/json-depth.js'
import { columnValue, columnValueFromBody, fieldColumns, fromBody, jsonPath, newColumn, typeInBody, type FieldColumn } from './sqlite-columns.js'
import {
  CheckpointConflict, DocumentRefused, MAX_DOCUMENT_DEPTH, assertCollection, assertField, type CommitBatch, type DocumentChange, type FindQuery,
  type ReadStore, type StagingKey,
} from './port.js'

export interface SqliteFileOptions {
  /** File path, or `:memory:`. */
  readonly path: string
  /**
   * How long a write waits for another connection's write lock (default 5 s). The thread that
   * serves requests uses a short wait, since SQLite waits by blocking the thread.
   */
  readonly busyTimeoutMs?: number
  /**
   * Whether this connection's commits copy the WAL back into the file once it has grown (default
   * true). A connection on a thread that serves requests and writes little says false, so that
   * copying 80 MiB of the projections' writes never falls to it.
   */
  readonly copiesWal?: boolean
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, commit_pos INTEGER NOT NULL, prepare_pos INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS staged (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, grp TEXT NOT NULL, attempt TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL, body TEXT
);
CREATE INDEX IF NOT EXISTS staged_key ON staged (grp, attempt, seq);
`

const table = (collection: string): string => {
  assertCollection(collection)
  return `"c_${collection}"`
}

/** The SQL operator of each bound. */
const BOUND_OPERATORS = [['gt', '>'], ['gte', '>='], ['lt', '<'], ['lte', '<=']] as const

/**
 * A document of only the fields at `paths`, from two values per field from `from` on, in the same order: the
 * string read from the field's column when it held one, else the field's JSON text (both null
 * when the document lacks it).
 */
const assemble = (paths: readonly (readonly string[])[], values: readonly (string | null)[], from = 0): JsonObject => {
  const doc: JsonObject = {}
  for (let i = 0; i < paths.length; i++) {
    const text = values[from + 2 * i]!
    const json = values[from + 2 * i + 1]!
    if (text === null && json === null) continue
    const path = paths[i]!
    let node = doc
    for (let depth = 0; depth < path.length - 1; depth++) node = (node[path[depth]!] ??= {}) as JsonObject
    node[path[path.length - 1]!] = text ?? JSON.parse(json!)
  }
  return doc
}

/**
 * Whether a lower bound on `field` holds for every document after `query.after`: the field comes
 * first in the order, and the value `after` starts from, of the bound's type, passes the bound
 * (documents after it hold at least that value in their first field).
 */
const impliedByAfter = (query: FindQuery, field: string, bound: 'gt' | 'gte' | 'lt' | 'lte', value: string | number): boolean => {
  const start = query.after?.[0]
  if (start === undefined || query.orderBy?.[0]?.[0] !== field || typeof start !== typeof value) return false
  return bound === 'gte' ? start >= value : bound === 'gt' ? start > value : false
}

/** Another connection holds the write lock longer than this connection waits. */
const isBusy = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY'

interface WritePlan {
  readonly columns: readonly FieldColumn[]
  readonly upsert: Database.Statement
  readonly remove: Database.Statement
}

/**
 * Read models in one SQLite file: one table of JSON documents per collection, and the projection
 * checkpoints beside them, so "write documents and move the checkpoint" is one local transaction.
 * Read models can be rebuilt from the log, so this file runs with `synchronous=NORMAL`.
 */
export class SqliteFile implements ReadStore {
  readonly kind = 'sqlite' as const
  private readonly db: Database.Database
  private readonly statements = new Map<string, Database.Statement>()
  /** Per collection whose table exists, its indexed fields, each kept in a column of its own. */
  private readonly tables = new Map<string, Map<string, FieldColumn>>()
  /** Per collection, its prepared writes; dropped whenever its indexed fields change. */
  private readonly plans = new Map<string, WritePlan>()

  constructor(options: SqliteFileOptions) {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true })
    this.db = new Database(options.path)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('synchronous = NORMAL')
    // Projections rewrite the same pages (indexes, checkpoints, hot documents) commit after
    // commit; copying the WAL back into the file every 80 MiB instead of every 4 MiB copies each
    // such page once instead of many times (all projectors together: about 14 % less CPU).
    this.db.pragma(`wal_autocheckpoint = ${options.copiesWal === false ? 0 : 20000}`)
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`)
    this.db.exec(SCHEMA)
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql)
    if (!statement) {
      statement = this.db.prepare(sql)
      this.statements.set(sql, statement)
    }
    return statement
  }

  /** Whether the collection's table exists in this file. */
  hasCollection(collection: string): boolean {
    return this.tables.has(collection)
      || this.statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(`c_${collection}`) !== undefined
  }

  private ensureTable(collection: string): string {
    const name = table(collection)
    if (!this.tables.has(collection)) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${name} (id TEXT PRIMARY KEY, body TEXT NOT NULL)`)
      this.tables.set(collection, this.columnsOf(name))
    }
    return name
  }

  private columnsOf(name: string): Map<string, FieldColumn> {
    return fieldColumns((this.db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((column) => column.name))
  }

  private column(collection: string, field: string): FieldColumn | undefined {
    return this.tables.get(collection)?.get(field)
  }

  /** How queries read `field`: its column when indexed, else from the JSON body. */
  private fieldExpression(collection: string, field: string): string {
    assertField(field)
    return this.column(collection, field)?.sql ?? fromBody(field)
  }

  async get<T extends JsonObject = JsonObject>(collection: string, id: string): Promise<T | null> {
    const body = this.statement(`SELECT body FROM ${this.ensureTable(collection)} WHERE id = ?`).pluck().get(id) as string | undefined
    return body === undefined ? null : (JSON.parse(body) as T)
  }

  async getMany<T extends JsonObject = JsonObject>(collection: string, ids: readonly string[], fields?: readonly string[]): Promise<Map<string, T>> {
    const found = new Map<string, T>()
    if (ids.length === 0) return found
    const name = this.ensureTable(collection)
    if (fields === undefined) {
      const rows = this.statement(`SELECT id, body FROM ${name} WHERE id IN (SELECT value FROM json_each(?))`).raw(true).all(JSON.stringify(ids)) as [string, string][]
      for (const [id, body] of rows) found.set(id, JSON.parse(body) as T)
      return found
    }
    const { columns, paths } = this.selection(collection, fields)
    const rows = this.statement(`SELECT id, ${columns} FROM ${name} WHERE id IN (SELECT value FROM json_each(?))`).raw(true).all(JSON.stringify(ids)) as string[][]
    for (const row of rows) found.set(row[0]!, assemble(paths, row, 1) as T)
    return found
  }

  /**
   * json_extract gives JSON booleans as 1/0, so booleans and numbers also check the JSON type:
   * `true` never equals `1`, as in MongoDB. Bounds and lists check it too: a string compares only
   * with strings, a number only with numbers.
   */
  private whereClause(collection: string, query: Pick<FindQuery, 'where' | 'contains' | 'range' | 'oneOf' | 'after' | 'orderBy'>): { sql: string; params: (string | number | null)[] } {
    const clauses: string[] = []
    const params: (string | number | null)[] = []
    for (const [field, value] of Object.entries(query.contains ?? {})) {
      // json_each also yields a scalar itself, so a string field equal to the value holds it, as in MongoDB.
      clauses.push(`EXISTS (SELECT 1 FROM json_each(body, ${jsonPath(field)}) WHERE json_each.type = 'text' AND json_each.value = ?)`)
      params.push(value)
    }
    for (const [field, value] of Object.entries(query.where ?? {})) {
      if (typeof value === 'boolean') {
        clauses.push(`${typeInBody(field)} = ?`)
        params.push(String(value))
      } else if (typeof value === 'number') {
        const column = this.column(collection, field)
        clauses.push(column?.numbersOnly ? `${column.sql} = ?` : `${this.fieldExpression(collection, field)} = ? AND ${typeInBody(field)} IN ('integer', 'real')`)
        params.push(value)
      } else {
        clauses.push(`${this.fieldExpression(collection, field)} IS ?`)
        params.push(value)
      }
    }
    for (const [field, bounds] of Object.entries(query.range ?? {})) {
      for (const [name, operator] of BOUND_OPERATORS) {
        const bound = bounds[name]
        if (bound === undefined) continue
        const type = this.typeIs(collection, field, typeof bound === 'number' ? 'number' : 'text')
        // A lower bound that `after` already passes is left out: with two lower bounds on one
        // field, SQLite may seek the index to the range's start and read every earlier page again.
        if (impliedByAfter(query, field, name, bound)) clauses.push(type)
        else {
          clauses.push(`${this.fieldExpression(collection, field)} ${operator} ? AND ${type}`)
          params.push(bound)
        }
      }
    }
    for (const [field, values] of Object.entries(query.oneOf ?? {})) {
      const texts = values.filter((value) => typeof value === 'string')
      const numbers = values.filter((value) => typeof value === 'number')
      const expression = this.fieldExpression(collection, field)
      const alternatives = [
        ...(texts.length > 0 ? [`(${expression} IN (SELECT value FROM json_each(?)) AND ${this.typeIs(collection, field, 'text')})`] : []),
        ...(numbers.length > 0 ? [`(${expression} IN (SELECT value FROM json_each(?)) AND ${this.typeIs(collection, field, 'number')})`] : []),
      ]
      clauses.push(alternatives.length > 0 ? `(${alternatives.join(' OR ')})` : '0')
      if (texts.length > 0) params.push(JSON.stringify(texts))
      if (numbers.length > 0) params.push(JSON.stringify(numbers))
    }
    if (query.after !== undefined) {
      const fields = (query.orderBy ?? []).map(([field, direction]) => {
        if (direction !== 'asc') throw new TypeError('a query read after a document orders every field ascending')
        return this.fieldExpression(collection, field)
      })
      if (query.after.length !== fields.length || fields.length === 0) throw new TypeError('after names one value per orderBy field')
      clauses.push(`(${fields.join(', ')}) > (${fields.map(() => '?').join(', ')})`)
      params.push(...query.after)
    }
    return { sql: clauses.length > 0 ? ` WHERE ${clauses.join(' AND ')}` : '', params }
  }

  /**
   * Whether a field holds a value of this JSON type, checked in an indexed field's column without
   * parsing the body, except a number in an `f:` column, which may stand for a boolean.
   */
  private typeIs(collection: string, field: string, type: 'text' | 'number'): string {
    const column = this.column(collection, field)
    if (type === 'text') return column ? `typeof(${column.sql}) = 'text'` : `${typeInBody(field)} = 'text'`
    return column?.numbersOnly ? `typeof(${column.sql}) IN ('integer', 'real')` : `${typeInBody(field)} IN ('integer', 'real')`
  }

  async find<T extends JsonObject = JsonObject>(collection: string, query: FindQuery = {}): Promise<T[]> {
    const name = this.ensureTable(collection)
    const { sql: where, params } = this.whereClause(collection, query)
    const order = (query.orderBy ?? []).map(([field, dir]) => `${this.fieldExpression(collection, field)} ${dir === 'desc' ? 'DESC' : 'ASC'}`)
    if (query.uniqueOrder !== true || order.length === 0) order.push('id ASC')
    const limit = query.limit ?? -1
    const offset = query.offset ?? 0
    const tail = `FROM ${name}${where} ORDER BY ${order.join(', ')} LIMIT ? OFFSET ?`
    const { fields } = query
    if (fields === undefined) {
      const rows = this.statement(`SELECT body ${tail}`).pluck().all(...params, limit, offset) as string[]
      return rows.map((body) => JSON.parse(body) as T)
    }
    const { columns, paths } = this.selection(collection, fields)
    const rows = this.statement(`SELECT ${columns} ${tail}`).raw(true).all(...params, limit, offset) as (string | null)[][]
    return rows.map((values) => assemble(paths, values) as T)
  }

  /** What `find` and `getMany` select for `fields` (two values per field, or NULL for none), and the path of each field. */
  private selection(collection: string, fields: readonly string[]): { columns: string; paths: string[][] } {
    return {
      columns: fields.length === 0 ? 'NULL' : fields.map((field) => this.fieldValues(collection, field)).join(', '),
      paths: fields.map((field) => field.split('.')),
    }
  }

  /**
   * The two values `assemble` takes for a field of `find`'s `fields`: an indexed field holding a
   * string is read from its column, with no body parsed; else `->` gives the field's JSON text
   * (NULL when absent), reading only that part of the body.
   */
  private fieldValues(collection: string, field: string): string {
    const column = this.column(collection, field)
    const json = `body -> ${jsonPath(field)}`
    if (!column) return `NULL, ${json}`
    const isText = `typeof(${column.sql}) = 'text'`
    return `CASE WHEN ${isText} THEN ${column.sql} END, CASE WHEN ${isText} THEN NULL ELSE ${json} END`
  }

  async count(collection: string, where?: FindQuery['where'], contains?: FindQuery['contains']): Promise<number> {
    const name = this.ensureTable(collection)
    const clause = this.whereClause(collection, { where, contains })
    return this.statement(`SELECT count(*) FROM ${name}${clause.sql}`).pluck().get(...clause.params) as number
  }

  async *scan(collection: string): AsyncIterable<{ id: string; doc: JsonObject }> {
    const first = this.statement(`SELECT id, body FROM ${this.ensureTable(collection)} ORDER BY id LIMIT 500`)
    const next = this.statement(`SELECT id, body FROM ${this.ensureTable(collection)} WHERE id > ? ORDER BY id LIMIT 500`)
    let after: string | null = null
    for (;;) {
      const rows = (after === null ? first.all() : next.all(after)) as { id: string; body: string }[]
      for (const row of rows) yield { id: row.id, doc: JSON.parse(row.body) as JsonObject }
      if (rows.length < 500) return
      after = rows.at(-1)!.id
    }
  }

  /** The statement and values that write one document (`body` its JSON text) or delete it (`body` null). */
  private writeOf(collection: string, id: string, body: string | null, doc?: JsonObject): { statement: Database.Statement; values: unknown[] } {
    const plan = this.planOf(collection)
    if (body === null) return { statement: plan.remove, values: [id] }
    const { columns } = plan
    const parsed = columns.length === 0 ? {} : doc ?? (JSON.parse(body) as JsonObject)
    return { statement: plan.upsert, values: [id, body, ...columns.map((column) => columnValue(parsed, column))] }
  }

  /** How a collection's documents are written, prepared once per collection and its indexed fields. */
  private planOf(collection: string): WritePlan {
    let plan = this.plans.get(collection)
    if (!plan) {
      const name = this.ensureTable(collection)
      const columns = [...this.tables.get(collection)!.values()]
      plan = { columns, upsert: this.upsert(name, columns), remove: this.statement(`DELETE FROM ${name} WHERE id = ?`) }
      this.plans.set(collection, plan)
    }
    return plan
  }

  private checked(change: DocumentChange): DocumentChange {
    if (change.doc !== null && nestsDeeperThan(change.doc, MAX_DOCUMENT_DEPTH)) {
      throw new DocumentRefused(change.collection, change.id, `nested deeper than ${MAX_DOCUMENT_DEPTH} levels`)
    }
    return change
  }

  /** Staged rows wait in their own table; publishing applies them inside the commit's one local transaction. */
  async stage(key: StagingKey, changes: readonly DocumentChange[]): Promise<void> {
    const rows = changes.map((change) => this.checked(change))
    for (const change of rows) this.ensureTable(change.collection)
    const insert = this.statement('INSERT INTO staged (grp, attempt, collection, id, body) VALUES (?, ?, ?, ?, ?)')
    this.db.transaction(() => {
      for (const change of rows) insert.run(key.group, key.attempt, change.collection, change.id, change.doc === null ? null : JSON.stringify(change.doc))
    }).immediate()
  }

  private publish(key: StagingKey): void {
    const page = this.statement('SELECT seq, collection, id, body FROM staged WHERE grp = ? AND attempt = ? AND seq > ? ORDER BY seq LIMIT 1000')
    for (let after = 0; ;) {
      const rows = page.all(key.group, key.attempt, after) as { seq: number; collection: string; id: string; body: string | null }[]
      for (const row of rows) {
        const write = this.writeOf(row.collection, row.id, row.body)
        write.statement.run(...write.values)
      }
      if (rows.length < 1000) break
      after = rows.at(-1)!.seq
    }
    this.statement('DELETE FROM staged WHERE grp = ?').run(key.group)
  }

  async commit(batch: CommitBatch): Promise<void> {
    const writes = batch.changes.map((change) => this.checked(change))
      .map((change) => this.writeOf(change.collection, change.id, change.doc === null ? null : JSON.stringify(change.doc), change.doc ?? undefined))
    if (batch.publish) {
      const collections = this.statement('SELECT DISTINCT collection FROM staged WHERE grp = ? AND attempt = ?').pluck().all(batch.publish.group, batch.publish.attempt) as string[]
      for (const collection of collections) this.ensureTable(collection)
    }
    this.db.transaction(() => {
      for (const write of writes) write.statement.run(...write.values)
      if (batch.publish) this.publish(batch.publish)
      const moved = batch.expected === null
        ? this.statement('INSERT INTO checkpoints (name, commit_pos, prepare_pos) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING')
          .run(batch.checkpoint, batch.next.commit, batch.next.prepare)
        : this.statement('UPDATE checkpoints SET commit_pos = ?, prepare_pos = ? WHERE name = ? AND commit_pos = ? AND prepare_pos = ?')
          .run(batch.next.commit, batch.next.prepare, batch.checkpoint, batch.expected.commit, batch.expected.prepare)
      if (moved.changes !== 1) throw new CheckpointConflict(batch.checkpoint)
    }).immediate()
  }

  private upsert(name: string, fieldColumns: readonly FieldColumn[]): Database.Statement {
    const columns = fieldColumns.map((column) => column.sql)
    const sets = ['body = excluded.body', ...columns.map((column) => `${column} = excluded.${column}`)]
    return this.statement(`INSERT INTO ${name} (id, body${columns.map((c) => `, ${c}`).join('')}) VALUES (?, ?${columns.map(() => ', ?').join('')})
      ON CONFLICT (id) DO UPDATE SET ${sets.join(', ')}`)
  }

  async checkpoint(name: string): Promise<Position | null> {
    const row = this.statement('SELECT commit_pos, prepare_pos FROM checkpoints WHERE name = ?').safeIntegers(true).get(name) as
      | { commit_pos: bigint; prepare_pos: bigint } | undefined
    return row ? { commit: row.commit_pos, prepare: row.prepare_pos } : null
  }

  /**
   * Indexes columns, not JSON expressions: each indexed field gets a column (filled from the
   * stored documents when it is added), written beside the body on every commit.
   */
  async ensureIndex(collection: string, fields: readonly string[]): Promise<void> {
    const name = this.ensureColumns(collection, fields)
    const suffix = `${collection}_${fields.join('_').replace(/[^A-Za-z0-9_]/g, '_')}`
    // Files written before columns held indexed fields have expression indexes under another name.
    this.db.exec(`DROP INDEX IF EXISTS "ix_${suffix}"`)
    this.db.exec(`CREATE INDEX IF NOT EXISTS "cx_${suffix}" ON ${name} (${fields.map((field) => this.column(collection, field)!.sql).join(', ')})`)
  }

  /**
   * The fields' columns without the index: a bulk build writes them with each document, as it
   * would with the index, and creating the index at the end then sorts them and parses no body.
   */
  async prepareIndex(collection: string, fields: readonly string[]): Promise<void> {
    this.ensureColumns(collection, fields)
  }

  /** Adds the columns `fields` lack, filled from the stored documents; the table's quoted name. */
  private ensureColumns(collection: string, fields: readonly string[]): string {
    const name = this.ensureTable(collection)
    for (const field of fields) assertField(field)
    if (fields.some((field) => !this.column(collection, field))) {
      // Immediate: another connection may be adding the same columns (another projection thread).
      // The missing columns are filled in one pass over the table: on a filled table each pass
      // reads and rewrites every row.
      this.db.transaction(() => {
        const present = this.columnsOf(name)
        const added = [...new Set(fields)].filter((field) => !present.has(field)).map(newColumn)
        if (added.length === 0) return
        for (const column of added) this.db.exec(`ALTER TABLE ${name} ADD COLUMN ${column.sql}`)
        this.db.exec(`UPDATE ${name} SET ${added.map((column) => `${column.sql} = ${columnValueFromBody(column)}`).join(', ')}`)
      }).immediate()
      this.tables.set(collection, this.columnsOf(name))
      this.plans.delete(collection)
    }
    return name
  }

  async dropCollection(collection: string): Promise<void> {
    this.db.exec(`DROP TABLE IF EXISTS ${table(collection)}`)
    this.tables.delete(collection)
    this.plans.delete(collection)
    for (const sql of this.statements.keys()) if (sql.includes(table(collection))) this.statements.delete(sql)
  }

  /** A lease that cannot be written now (another connection holds the write lock) is not taken this time. */
  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now()
    try {
      const taken = this.statement(`INSERT INTO leases (name, owner, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
        WHERE leases.owner = excluded.owner OR leases.expires_at <= ?`).run(name, owner, now + ttlMs, now)
      return taken.changes === 1
    } catch (error) {
      if (isBusy(error)) return false
      throw error
    }
  }

  /**
   * Like taking a lease, releasing one never waits out another connection's write: when the file
   * is locked the lease is left to lapse at its expiry, which is also what a crash leaves.
   */
  async releaseLease(name: string, owner: string): Promise<void> {
    try {
      this.statement('DELETE FROM leases WHERE name = ? AND owner = ?').run(name, owner)
    } catch (error) {
      if (!isBusy(error)) throw error
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close()
  }
}
