import type { QueryInput, QuerySource } from '../engine/data.js'
import { loadLookups, visitRows } from '../engine/passes.js'
import type { RowContext } from '../properties/row-context.js'
import type { EventsQuery } from '../schema/other-queries.js'
import { cellOf, typeOf } from './event-columns.js'
import { evaluate, order, truth, type Value } from './hogql-eval.js'
import { planEventsQuery, type EventsPlan } from './events-query-plan.js'

export interface EventsQueryResponse {
  readonly columns: string[]
  readonly types: string[]
  readonly results: unknown[][]
  readonly hasMore: boolean
  readonly limit: number
  readonly offset: number
  readonly timezone: string
}

/** A row kept for the page: one event, or one group (its first event and how many it holds). */
interface Candidate {
  readonly row: RowContext | null
  readonly count: number
  readonly seq: number
  keys: Value[]
}

const compareKeys = (plan: EventsPlan) => (a: Candidate, b: Candidate): number => {
  for (let i = 0; i < plan.order.length; i++) {
    const x = a.keys[i]!
    const y = b.keys[i]!
    // Nulls go last in either direction, as ClickHouse sorts them by default.
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1
      continue
    }
    const diff = order(x, y, plan.zone) ?? (String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0)
    if (diff !== 0) return plan.order[i]!.descending ? -diff : diff
  }
  return a.seq - b.seq
}

/** Keeps the first `size` candidates in order while rows stream, sorting only now and then. */
class TopCandidates {
  private items: Candidate[] = []
  constructor(private readonly compare: (a: Candidate, b: Candidate) => number, private readonly size: number) {}
  push(item: Candidate): void {
    this.items.push(item)
    if (this.items.length >= this.size * 2 + 1000) this.trim()
  }
  finish(): Candidate[] {
    this.trim()
    return this.items
  }
  private trim(): void {
    this.items.sort(this.compare)
    this.items.length = Math.min(this.items.length, this.size)
  }
}

const keysOf = (plan: EventsPlan, row: RowContext | null, count: number): Value[] =>
  plan.order.map((key) => key.valueOf({ row, count, zone: plan.zone }))

/** Groups rows by their non-aggregate columns; without any, all rows form one group (even none). */
const groupRows = async (plan: EventsPlan, stream: (visit: (row: RowContext) => void) => Promise<void>): Promise<Candidate[]> => {
  const groups = new Map<string, { row: RowContext; count: number; seq: number }>()
  const keyColumns = plan.columns.filter((c) => !(c.column.kind === 'expr' && c.column.aggregate))
  let seq = 0
  await stream((row) => {
    const key = JSON.stringify(keyColumns.map((c) => (c.column.kind === 'expr' ? evaluate(c.column.expr, { row, count: 1, zone: plan.zone }) : row.event.uuid)))
    const group = groups.get(key)
    if (group) group.count += 1
    else groups.set(key, { row, count: 1, seq: seq++ })
  })
  const out: Candidate[] = [...groups.values()].map((g) => ({ ...g, keys: [] }))
  if (keyColumns.length === 0 && out.length === 0) out.push({ row: null, count: 0, seq: 0, keys: [] })
  return out.filter((g) => plan.having.every((expr) => truth(evaluate(expr, { row: g.row, count: g.count, zone: plan.zone })) === true))
}

/**
 * Runs an EventsQuery (PostHog's events table and explorer): filters, `where` conditions,
 * aggregates with grouping, ordering and a page of `limit` rows after `offset`; `hasMore` tells
 * whether another row follows.
 */
export const runEventsQuery = async (query: EventsQuery, input: QueryInput, source: QuerySource): Promise<EventsQueryResponse> => {
  const plan = planEventsQuery(query, input)
  const scan = { from: plan.after === null ? null : plan.after + 1, to: plan.before - 1, events: plan.names }
  const lookups = await loadLookups(source, input.environment, plan.needs, scan)
  const stream = (visit: (row: RowContext) => void) => visitRows(source, scan, lookups, (row) => { if (plan.test(row)) visit(row) })
  const compare = compareKeys(plan)
  const wanted = plan.offset + plan.limit + 1
  let candidates: Candidate[]
  if (plan.grouped) {
    candidates = (await groupRows(plan, stream)).map((c) => ({ ...c, keys: keysOf(plan, c.row, c.count) })).sort(compare)
  } else {
    const top = new TopCandidates(compare, wanted)
    let seq = 0
    await stream((row) => top.push({ row, count: 1, seq: seq++, keys: keysOf(plan, row, 1) }))
    candidates = top.finish()
  }
  const page = candidates.slice(plan.offset, plan.offset + plan.limit)
  const personIds = plan.columns.some((c) => c.column.kind === 'person') ? [...new Set(page.flatMap((c) => (c.row ? [c.row.event.personId] : [])))] : []
  const persons = personIds.length > 0 ? await source.persons(personIds) : new Map()
  const teamId = input.environment.teamId ?? 0
  return {
    columns: plan.columns.map((c) => c.name),
    types: plan.columns.map((c) => typeOf(c.column)),
    results: page.map((c) => plan.columns.map((column) => cellOf(column.column, c.row, c.count, persons, plan.zone, teamId))),
    hasMore: candidates.length > plan.offset + plan.limit,
    limit: plan.limit,
    offset: plan.offset,
    timezone: input.environment.timezone,
  }
}
