import type Database from 'better-sqlite3'
import type { Position, SubscribeOptions, Subscription, SubscriptionFilter, SubscriptionItem } from './port.js'
import type { RecordedEvent } from './port.js'
import type { RowReader } from './decoded-rows.js'
import { EVENT_COLUMNS, type EventRow } from './sqlite-schema.js'

/** What a subscription needs from the SQLite log. */
export interface SubscriptionSource {
  readonly pollIntervalMs: number
  head(): bigint
  query(sql: string): Database.Statement
  onCommit(listener: () => void): () => void
  isClosed(): boolean
  /** The recorded event of a row, decoded once for all of this source's subscriptions. */
  decode(row: EventRow): RecordedEvent
  /** Tells the source how far a subscription has read, so rows every one has passed are let go. */
  reader(position: bigint): RowReader
}

const PAGE = 500
/** Characters of event data one page should hold, about: a page of large events is fewer rows. */
const PAGE_CHARS = 4 * 1024 * 1024

/** The rows to ask for next, from the size of the rows of the last page. */
const nextPageRows = (rows: readonly EventRow[]): number => {
  let chars = 0
  for (const row of rows) chars += row.data.length + (row.metadata?.length ?? 0)
  return chars === 0 ? PAGE : Math.max(1, Math.min(PAGE, Math.floor((PAGE_CHARS * rows.length) / chars)))
}
/** Log positions one query may scan; a filter that matches little still yields between windows. */
const SEARCH_WINDOW = 32n * 128n

/** Lets timers, I/O and other requests run between pages of a long catch-up. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

const filterSql = (filter: SubscriptionFilter | undefined): { where: string; params: unknown[] } => {
  const clauses: string[] = []
  const params: unknown[] = []
  if (filter?.eventTypes) {
    clauses.push(`event_type IN (${filter.eventTypes.map(() => '?').join(', ') || 'NULL'})`)
    params.push(...filter.eventTypes)
  }
  if (filter?.streamPrefixes) {
    // substr, not LIKE: LIKE ignores ASCII case. length() and substr() both count characters.
    clauses.push(`(${filter.streamPrefixes.map(() => 'substr(stream_id, 1, length(?)) = ?').join(' OR ') || 'FALSE'})`)
    for (const prefix of filter.streamPrefixes) params.push(prefix, prefix)
  }
  return { where: clauses.map((c) => ` AND ${c}`).join(''), params }
}

/**
 * A catch-up subscription over the SQLite log. It pages through history with the filter applied
 * (pages of large events hold fewer rows, and a row is let go once it is delivered)
 * in SQL, over a bounded window of positions below the head it read first, so a checkpoint at the
 * window's end never passes an undelivered event (SQLite serialises writers: every position below
 * a visible head is committed). It yields to the event loop between pages. Once it reaches the
 * head it reports `caughtUp`, then waits for this process's commits or polls for other processes'.
 */
export const sqliteSubscription = (source: SubscriptionSource, options: SubscribeOptions): Subscription => {
  const { where, params } = filterSql(options.filter)
  const page = source.query(`SELECT ${EVENT_COLUMNS} FROM events WHERE global_position > ? AND global_position <= ?${where} ORDER BY global_position LIMIT ?`)
  let stopped = false
  let wake: (() => void) | undefined

  const waitForNewEvents = (after: bigint): Promise<void> => new Promise((resolve) => {
    const done = (): void => {
      clearInterval(timer)
      unlisten()
      wake = undefined
      resolve()
    }
    const timer = setInterval(() => { if (source.isClosed() || source.head() > after) done() }, source.pollIntervalMs)
    const unlisten = source.onCommit(done)
    wake = done
  })

  const start = options.fromPosition ?? 'start'
  const startPosition = (): bigint => (start === 'start' ? 0n : start === 'end' ? source.head() : start.commit)
  // Registered now, so rows the other subscriptions decode from here on are kept for this one.
  const reader = source.reader(startPosition())

  async function* items(): AsyncGenerator<SubscriptionItem> {
    let from = startPosition()
    let caughtUp = false
    let limit = PAGE
    try {
      while (!stopped && !source.isClosed()) {
        const head = source.head()
        const upper = head - from > SEARCH_WINDOW ? from + SEARCH_WINDOW : head
        const rows = page.all(from, upper, ...params, limit) as EventRow[]
        const full = rows.length === limit
        limit = nextPageRows(rows)
        while (rows.length > 0) {
          const row = rows.shift()!
          yield { kind: 'event', event: source.decode(row) }
          from = row.global_position
          reader.passed(from)
          if (stopped) return
        }
        if (!full && upper > from) {
          from = upper
          reader.passed(from)
          const position: Position = { commit: upper, prepare: upper }
          yield { kind: 'checkpoint', position }
        }
        if (full || upper < head) {
          await yieldToEventLoop()
          continue
        }
        if (!caughtUp) {
          caughtUp = true
          yield { kind: 'caughtUp' }
        }
        if (stopped || source.isClosed()) return
        if (source.head() <= from) await waitForNewEvents(from)
      }
    } finally {
      reader.close()
    }
  }

  const iterator = items()
  return {
    [Symbol.asyncIterator]: () => iterator,
    async unsubscribe() {
      stopped = true
      wake?.()
      reader.close()
      await iterator.return(undefined)
    },
  }
}
