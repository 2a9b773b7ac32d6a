import Database from 'better-sqlite3'
import { join } from 'node:path'

/**
 * The bench's two queries written straight against the embedded store's files with better-sqlite3,
 * as plainly as they can be: one SQL statement over the events read model, its person found
 * through the persons file's distinct-id mapping (attached), and for the funnel one pass over the
 * rows in timestamp order. What Hedgelog's query path adds to reading the same rows is the
 * difference between its answer time and these.
 */

/** Per breakdown value, per day (`YYYY-MM-DD`), the people with a matching event that day. */
export type DailyPeople = Record<string, Record<string, number>>

/** A time range, as ISO texts the events' timestamps compare with (both inclusive). */
export interface Range {
  readonly from: string
  readonly to: string
}

export interface Floor {
  /** People per day with a `event` event, by the value of an event property (UTC days). */
  dailyPeople(environmentId: number, event: string, property: string, range: Range): DailyPeople
  /** How many people reached each step of an ordered funnel, every step's event in `range`. */
  funnel(environmentId: number, steps: readonly string[], windowMs: number, range: Range): number[]
  close(): void
}

/** The table of a read model's newest build in a file: the one a service that has finished rebuilding reads. */
const tableOf = (db: Database.Database, schema: string, collection: string): string => {
  const builds = (db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name GLOB ?`).pluck().all(`c_${collection}_v*_b*`) as string[])
    .map((name) => ({ name, order: /_v(\d+)_b(\d+)$/.exec(name)!.slice(1).map(Number) }))
    .sort((a, b) => b.order[0]! - a.order[0]! || b.order[1]! - a.order[1]!)
  if (builds.length === 0) throw new Error(`no build of ${collection} in ${schema}`)
  return `${schema}."${builds[0]!.name}"`
}

/** The column of an indexed field: `v:<field>`, or `f:<field>` in a table made before. */
const columnOf = (db: Database.Database, table: string, field: string): string => {
  const names = (db.prepare(`PRAGMA ${table.replace('.', '.table_info(')})`).all() as { name: string }[]).map((column) => column.name)
  const name = [`v:${field}`, `f:${field}`].find((candidate) => names.includes(candidate))
  if (name === undefined) throw new Error(`${table} has no column for ${field}`)
  return `e."${name}"`
}

export const openFloor = (dataDir: string): Floor => {
  const db = new Database(join(dataDir, 'readmodels-events.sqlite'), { readonly: true })
  db.exec(`ATTACH DATABASE '${join(dataDir, 'readmodels-persons.sqlite').replaceAll("'", "''")}' AS persons`)
  const events = tableOf(db, 'main', 'events')
  const mappings = tableOf(db, 'persons', 'person_distinct_ids')
  const [environment, timestamp, name, distinctId] = ['environment_id', 'timestamp', 'event', 'distinct_id'].map((field) => columnOf(db, events, field))
  // The person an event's distinct id belongs to now, or the distinct id itself when it has none.
  const person = `coalesce(m.body ->> '$.person_id', ${distinctId})`
  const joined = `FROM ${events} e LEFT JOIN ${mappings} m ON m.id = ${environment} || ':' || ${distinctId}`
  const inRange = `${environment} = ? AND ${timestamp} >= ? AND ${timestamp} <= ?`
  const daily = db.prepare(`SELECT substr(${timestamp}, 1, 10), e.body ->> ('$.properties."' || ? || '"'), count(DISTINCT ${person})
    ${joined} WHERE ${inRange} AND ${name} = ? GROUP BY 1, 2`).raw(true)
  const stepRows = db.prepare(`SELECT ${person}, ${timestamp}, ${name}
    ${joined} WHERE ${inRange} AND ${name} IN (SELECT value FROM json_each(?)) ORDER BY ${timestamp}`).raw(true)
  return {
    dailyPeople(environmentId, event, property, range) {
      const out: DailyPeople = {}
      for (const [day, value, people] of daily.iterate(property, environmentId, range.from, range.to, event) as Iterable<[string, unknown, number]>) {
        (out[String(value ?? '')] ??= {})[day] = people
      }
      return out
    },
    funnel(environmentId, steps, windowMs, range) {
      // Per person, for each step, the latest start of a way through the funnel that reached it:
      // a later start leaves more of the window for the next step, so it is the one to keep.
      const starts = new Map<string, number[]>()
      for (const [person, timestamp, event] of stepRows.iterate(environmentId, range.from, range.to, JSON.stringify(steps)) as Iterable<[string, string, string]>) {
        const step = steps.indexOf(event)
        const t = Date.parse(timestamp)
        let reached = starts.get(person)
        if (reached === undefined) starts.set(person, reached = [])
        if (step === 0) reached[0] = t
        else if (reached[step - 1] !== undefined && t - reached[step - 1]! <= windowMs) reached[step] = Math.max(reached[step] ?? -Infinity, reached[step - 1]!)
      }
      const counts = steps.map(() => 0)
      for (const reached of starts.values()) for (let step = 0; step < reached.length; step++) if (reached[step] !== undefined) counts[step]!++
      return counts
    },
    close: () => db.close(),
  }
}
