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

/** The one table of a read model in a file: a fresh service has one build of each. */
const tableOf = (db: Database.Database, schema: string, collection: string): string => {
  const tables = db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name GLOB ?`).pluck().all(`c_${collection}_v*_b*`) as string[]
  if (tables.length !== 1) throw new Error(`expected one build of ${collection}, found ${tables.length}`)
  return `${schema}."${tables[0]}"`
}

/** The person an event's distinct id belongs to now, or the distinct id itself when it has none. */
const PERSON = `coalesce(m.body ->> '$.person_id', e."f:distinct_id")`

export const openFloor = (dataDir: string): Floor => {
  const db = new Database(join(dataDir, 'readmodels-events.sqlite'), { readonly: true })
  db.exec(`ATTACH DATABASE '${join(dataDir, 'readmodels-persons.sqlite').replaceAll("'", "''")}' AS persons`)
  const events = tableOf(db, 'main', 'events')
  const mappings = tableOf(db, 'persons', 'person_distinct_ids')
  const joined = `FROM ${events} e LEFT JOIN ${mappings} m ON m.id = e."f:environment_id" || ':' || e."f:distinct_id"`
  const inRange = `e."f:environment_id" = ? AND e."f:timestamp" >= ? AND e."f:timestamp" <= ?`
  const daily = db.prepare(`SELECT substr(e."f:timestamp", 1, 10), e.body ->> ('$.properties."' || ? || '"'), count(DISTINCT ${PERSON})
    ${joined} WHERE ${inRange} AND e."f:event" = ? GROUP BY 1, 2`).raw(true)
  const stepRows = db.prepare(`SELECT ${PERSON}, e."f:timestamp", e."f:event"
    ${joined} WHERE ${inRange} AND e."f:event" IN (SELECT value FROM json_each(?)) ORDER BY e."f:timestamp"`).raw(true)
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
