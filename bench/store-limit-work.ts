import Database from 'better-sqlite3'

/**
 * The store's share of projecting captured events, and nothing else: what projecting into the four
 * captured-event read models, stored as they are, takes in the embedded store, done with
 * better-sqlite3 at its plainest. It reads and parses the log's `EventsCaptured` rows, and writes documents of the
 * shapes and sizes the read models hold, under the same indexes, in the same kind of file (WAL,
 * `synchronous=NORMAL`), one transaction per log row with a checkpoint row moved in it. Person
 * merges, property rules and quarantine are left out, so it bounds from above what the projectors
 * can reach on a machine with the read models laid out as they are.
 */

/** `people`: persons, their distinct ids and groups; `activity`: events and sessions. As the projection threads split them. */
export type Share = 'people' | 'activity'

interface Captured {
  readonly uuid: string
  readonly event: string
  readonly distinct_id: string
  readonly timestamp: string
  readonly ip: string | null
  readonly properties: Record<string, unknown>
}

type Doc = Record<string, unknown>

/** The value at a dotted path of a document, as an indexed column holds it (objects aside: none are indexed here). */
const valueAt = (doc: Doc, field: string): unknown => {
  let value: unknown = doc
  for (const segment of field.split('.')) value = value !== null && typeof value === 'object' ? (value as Doc)[segment] : undefined
  return value ?? null
}

const TABLES: Record<Share, Record<string, string[][]>> = {
  people: {
    persons: [['environment_id', 'created_at'], ['environment_id', 'id'], ['environment_id', 'properties.email']],
    distinct_ids: [],
    groups: [['environment_id', 'group_type_index', 'created_at']],
  },
  activity: {
    events: [['environment_id', 'timestamp', 'uuid'], ['environment_id', 'event', 'timestamp'], ['environment_id', 'distinct_id', 'timestamp']],
    sessions: [['environment_id', 'start_timestamp']],
  },
}

/** One collection: a document table with its indexed fields in columns, read by id and written by upsert. */
class Collection {
  private readonly read: Database.Statement
  private readonly write: Database.Statement
  private readonly fields: string[]

  /** The statements that create its secondary indexes. */
  readonly indexStatements: string[]

  constructor(db: Database.Database, readonly name: string, indexes: string[][], indexesAfter: boolean) {
    this.fields = [...new Set(indexes.flat())]
    const columns = this.fields.map((field) => `, "f:${field}"`).join('')
    db.exec(`CREATE TABLE IF NOT EXISTS "${name}" (id TEXT PRIMARY KEY, body TEXT NOT NULL${columns})`)
    this.indexStatements = indexes.map((index, i) => `CREATE INDEX IF NOT EXISTS "${name}_${i}" ON "${name}" (${index.map((f) => `"f:${f}"`).join(', ')})`)
    if (!indexesAfter) for (const statement of this.indexStatements) db.exec(statement)
    this.read = db.prepare(`SELECT body FROM "${name}" WHERE id = ?`).pluck()
    const sets = ['body = excluded.body', ...this.fields.map((field) => `"f:${field}" = excluded."f:${field}"`)]
    this.write = db.prepare(`INSERT INTO "${name}" (id, body${columns}) VALUES (?, ?${this.fields.map(() => ', ?').join('')}) ON CONFLICT (id) DO UPDATE SET ${sets.join(', ')}`)
  }

  get(id: string): Doc | null {
    const body = this.read.get(id) as string | undefined
    return body === undefined ? null : (JSON.parse(body) as Doc)
  }

  /** What `store` writes for the document: its JSON text and indexed fields, made outside the transaction. */
  encode(id: string, doc: Doc): unknown[] {
    return [id, JSON.stringify(doc), ...this.fields.map((field) => valueAt(doc, field))]
  }

  store(values: unknown[]): void {
    this.write.run(...values)
  }
}

/**
 * The documents one log row touches, each read once (in one read transaction, before the write
 * transaction) and written once;
 * documents only ever written (events) are kept in a list.
 */
class Batch {
  private readonly docs = new Map<Collection, Map<string, Doc | null>>()
  private readonly written = new Map<Collection, Set<string>>()
  private readonly added: [Collection, string, Doc][] = []

  private of<T>(map: Map<Collection, T>, collection: Collection, make: () => T): T {
    let value = map.get(collection)
    if (value === undefined) map.set(collection, value = make())
    return value
  }

  get(collection: Collection, id: string): Doc | null {
    const docs = this.of(this.docs, collection, () => new Map<string, Doc | null>())
    if (!docs.has(id)) docs.set(id, collection.get(id))
    return docs.get(id)!
  }

  set(collection: Collection, id: string, doc: Doc): void {
    this.of(this.docs, collection, () => new Map<string, Doc | null>()).set(id, doc)
    this.of(this.written, collection, () => new Set<string>()).add(id)
  }

  add(collection: Collection, id: string, doc: Doc): void {
    this.added.push([collection, id, doc])
  }

  /** Every write, encoded. */
  writes(): [Collection, unknown[]][] {
    const out: [Collection, unknown[]][] = this.added.map(([collection, id, doc]) => [collection, collection.encode(id, doc)])
    for (const [collection, ids] of this.written) {
      const docs = this.docs.get(collection)!
      for (const id of ids) out.push([collection, collection.encode(id, docs.get(id)!)])
    }
    return out
  }
}

const people = (collections: Map<string, Collection>) => {
  const persons = collections.get('persons')!
  const distinctIds = collections.get('distinct_ids')!
  const groups = collections.get('groups')!
  let lastId = 0
  return (batch: Batch, environmentId: number, event: Captured): void => {
    const mappingId = `${environmentId}:${event.distinct_id}`
    const mapping = batch.get(distinctIds, mappingId)
    const set = (event.properties['$set'] ?? {}) as Doc
    if (mapping === null) {
      const uuid = event.uuid
      batch.set(distinctIds, mappingId, { environment_id: environmentId, distinct_id: event.distinct_id, person_id: uuid })
      batch.set(persons, `${environmentId}:${uuid}`, {
        id: ++lastId, uuid, environment_id: environmentId, properties: { $initial_browser: event.properties['$browser'], $initial_current_url: event.properties['$current_url'], ...set, $creator_event_uuid: event.uuid },
        distinct_ids: [event.distinct_id], is_identified: false, created_at: event.timestamp, version: 0,
      })
    } else {
      const personId = `${environmentId}:${String(mapping['person_id'])}`
      const person = batch.get(persons, personId)
      if (person !== null) batch.set(persons, personId, { ...person, properties: { ...(person['properties'] as Doc), ...set }, version: Number(person['version']) + 1 })
    }
    const eventGroups = (event.properties['$groups'] ?? {}) as Record<string, string>
    for (const [index, [type, key]] of Object.entries(eventGroups).entries()) {
      const groupId = `${environmentId}:${index}:${key}`
      if (batch.get(groups, groupId) === null) {
        batch.set(groups, groupId, { environment_id: environmentId, group_type_index: index, group_type: type, group_key: key, group_properties: {}, created_at: event.timestamp })
      }
    }
  }
}

const activity = (collections: Map<string, Collection>) => {
  const events = collections.get('events')!
  const sessions = collections.get('sessions')!
  return (batch: Batch, environmentId: number, event: Captured): void => {
    const id = `${environmentId}:${event.uuid}`
    const { properties } = event
    const initial = { $initial_browser: properties['$browser'], $initial_current_url: properties['$current_url'] }
    batch.add(events, id, {
      environment_id: environmentId, uuid: event.uuid, event: event.event, distinct_id: event.distinct_id, timestamp: event.timestamp,
      properties: { ...properties, $ip: event.ip, $set_once: initial }, elements_chain: '',
    })
    const sessionId = event.properties['$session_id']
    if (typeof sessionId !== 'string') return
    const key = `${environmentId}:${sessionId}`
    const url = [event.properties['$current_url'], event.timestamp]
    const session = batch.get(sessions, key)
    batch.set(sessions, key, session === null
      ? {
          environment_id: environmentId, session_id: sessionId, distinct_id: event.distinct_id, start_timestamp: event.timestamp, end_timestamp: event.timestamp,
          entry: { $current_url: url }, end: { $current_url: url }, event_count: 1, pageview_count: event.event === '$pageview' ? 1 : 0, autocapture_count: 0, screen_count: 0,
        }
      : {
          ...session, end_timestamp: event.timestamp, end: { $current_url: url }, event_count: Number(session['event_count']) + 1,
          pageview_count: Number(session['pageview_count']) + (event.event === '$pageview' ? 1 : 0),
        })
  }
}

/** Projects every `EventsCaptured` row of the log at `logPath` into the store at `storePath`; the number of captured events. */
export const projectShare = (share: Share, logPath: string, storePath: string, indexesAfter = false): number => {
  const log = new Database(logPath, { readonly: true })
  const db = new Database(storePath)
  db.pragma('busy_timeout = 5000')
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('wal_autocheckpoint = 20000')
  db.exec('CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL)')
  const collections = new Map(Object.entries(TABLES[share]).map(([name, indexes]) => [name, new Collection(db, `${share}_${name}`, indexes, indexesAfter)]))
  const apply = share === 'people' ? people(collections) : activity(collections)
  const checkpoint = db.prepare('INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position')
  const page = log.prepare("SELECT global_position, data FROM events WHERE global_position > ? AND event_type = 'EventsCaptured' ORDER BY global_position LIMIT 16")
  let count = 0
  const commit = db.transaction((writes: [Collection, unknown[]][], position: number) => {
    for (const [collection, values] of writes) collection.store(values)
    checkpoint.run(share, position)
  })
  const reading = db.transaction((read: () => void) => read())
  for (let after = 0; ;) {
    const rows = page.all(after) as { global_position: number; data: string }[]
    for (const row of rows) {
      const data = JSON.parse(row.data) as { environmentId: number; events: Captured[] }
      const batch = new Batch()
      // One snapshot for all of a row's reads: each read alone would open and close a read
      // transaction of its own, which costs more than the read (the store batches its reads too).
      reading(() => { for (const event of data.events) apply(batch, data.environmentId, event) })
      commit.immediate(batch.writes(), row.global_position)
      count += data.events.length
    }
    if (rows.length === 0) break
    after = rows.at(-1)!.global_position
  }
  if (indexesAfter) for (const collection of collections.values()) for (const statement of collection.indexStatements) db.exec(statement)
  log.close()
  db.close()
  return count
}
