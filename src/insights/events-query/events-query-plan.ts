import type { QueryInput } from '../engine/data.js'
import { QueryRefused } from '../errors.js'
import { compileProperties, noNeeds, type Needs, type RowTest } from '../properties/compile-filters.js'
import type { RowContext } from '../properties/row-context.js'
import type { EventsQuery } from '../schema/other-queries.js'
import type { AnyPropertyFilter } from '../schema/property-filters.js'
import { shiftLocal } from '../time/calendar.js'
import { parseDateInput } from '../time/date-input.js'
import { openZone, type Zone } from '../time/zone.js'
import { bareColumn, displayName, parseSelect, type SelectColumn } from './event-columns.js'
import { evaluate, truth, type Scope, type Value } from './hogql-eval.js'
import { isAggregate, parseExpr, parseOrder, type Expr } from './hogql-parser.js'

/** PostHog's row limits: 100 rows unless asked, 50 000 at the most. */
export const DEFAULT_LIMIT = 100
export const MAX_LIMIT = 50_000

export interface OrderKey {
  readonly valueOf: (scope: Scope) => Value
  readonly descending: boolean
}

export interface EventsPlan {
  readonly zone: Zone
  readonly columns: readonly SelectColumn[]
  /** Per event: filters, `where` conditions without aggregates, the event names and the person. */
  readonly test: RowTest
  /** `where` conditions with aggregates (HAVING), on groups. */
  readonly having: readonly Expr[]
  readonly grouped: boolean
  readonly order: readonly OrderKey[]
  readonly names: readonly string[] | null
  /** Exclusive bounds (epoch ms): events strictly after `after` (null: no bound) and strictly before `before`. */
  readonly after: number | null
  readonly before: number
  readonly limit: number
  readonly offset: number
  readonly needs: Needs
}

const conditionTest = (expr: Expr, zone: Zone): RowTest => (row: RowContext) => truth(evaluate(expr, { row, count: 1, zone })) === true

/** Property filters, with `hogql` filters read by the expression parser. */
const filtersTest = (filters: readonly AnyPropertyFilter[] | null | undefined, attr: string, zone: Zone, now: number, needs: Needs): RowTest => {
  const list = filters ?? []
  const hogql = list.flatMap((f, i) => (f.type === 'hogql' ? [conditionTest(parseExpr(f.key, `${attr}.${i}.key`), zone)] : []))
  const others = compileProperties(list.filter((f) => f.type !== 'hogql'), now, needs)
  return (row) => others(row) && hogql.every((test) => test(row))
}

/** `after`/`before` as PostHog's relative_date_parse reads them: ISO (naive in the project's zone) or relative to now, not rounded. */
const bound = (text: string, attr: string, zone: Zone, now: number): number => {
  const input = parseDateInput(text)
  if (input === null) throw new QueryRefused(`Invalid date ${JSON.stringify(text)}.`, 'invalid_input', attr)
  if (input.kind === 'instant') return input.instant
  if (input.kind === 'absolute') return zone.toInstant(input.local)
  return zone.toInstant(shiftLocal(zone.toLocal(now), input.shift, -1))
}

const ORDER_SUFFIX = /^([\s\S]*?)\s+(asc|desc)\s*$/i

const orderKey = (text: string, columns: readonly SelectColumn[], select: readonly string[], attr: string): OrderKey => {
  const suffix = ORDER_SUFFIX.exec(text)
  const base = suffix ? suffix[1]! : text
  const descending = suffix?.[2]!.toLowerCase() === 'desc'
  if (bareColumn(base) === 'person_display_name') return { valueOf: (scope) => (scope.row === null ? null : displayName(scope.row.event)), descending }
  const at = select.findIndex((item) => item === base || bareColumn(item) === bareColumn(base))
  const column = at >= 0 ? columns[at]!.column : null
  if (column?.kind === 'expr') return { valueOf: (scope) => evaluate(column.expr, scope), descending }
  if (column?.kind === 'star') return { valueOf: (scope) => scope.row?.event.uuid ?? null, descending }
  if (column !== null) return { valueOf: (scope) => scope.row?.event.distinctId ?? null, descending }
  const parsed = parseOrder(text, attr)
  return { valueOf: (scope) => evaluate(parsed.expr, scope), descending: parsed.descending }
}

/** PostHog's default order: count() first, else the first aggregate, else the newest events, else the first column. */
const defaultOrder = (columns: readonly SelectColumn[], select: readonly string[]): OrderKey[] => {
  const count = select.indexOf('count()')
  const aggregate = columns.findIndex((c) => c.column.kind === 'expr' && c.column.aggregate)
  const at = count >= 0 ? count : aggregate
  if (at >= 0) return [orderKey(`${select[at]} DESC`, columns, select, 'orderBy')]
  if (select.includes('timestamp')) return [orderKey('timestamp DESC', columns, select, 'orderBy')]
  return columns.length > 0 ? [orderKey(select[0]!, columns, select, 'orderBy')] : []
}

/** Reads an EventsQuery into a plan, refusing what Hedgelog cannot run with a 400 that names it. */
export const planEventsQuery = (query: EventsQuery, input: QueryInput): EventsPlan => {
  if ((query as { source?: unknown }).source) throw new QueryRefused('Events queries over an insight source are not supported yet.', 'unsupported_query', 'source')
  if (query.actionId !== undefined && query.actionId !== null) throw new QueryRefused('Filtering events by action is not supported yet: Hedgelog has no actions.', 'unsupported_query', 'actionId')
  const zone = openZone(input.environment.timezone)
  const needs = noNeeds()
  const select = query.select.length === 0 ? ['*'] : query.select
  const columns = parseSelect(select)
  const where = (query.where ?? []).map((text, i) => parseExpr(text, `where.${i}`))
  const conditions = where.filter((expr) => !isAggregate(expr)).map((expr) => conditionTest(expr, zone))
  const properties = filtersTest(query.properties, 'properties', zone, input.now, needs)
  const fixed = filtersTest(query.fixedProperties, 'fixedProperties', zone, input.now, needs)
  const testAccounts = compileProperties(query.filterTestAccounts ? input.environment.testAccountFilters : null, input.now, needs)
  const { personId } = query
  const names = [query.event, ...(query.events ?? [])].filter((name): name is string => typeof name === 'string' && name !== '')
  const after = query.after ?? '-24h'
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT)
  return {
    zone, columns, needs, limit, offset: query.offset ?? 0,
    test: (row) => (personId === undefined || personId === null || row.event.personId === personId) &&
      properties(row) && fixed(row) && testAccounts(row) && conditions.every((test) => test(row)),
    having: where.filter(isAggregate),
    grouped: columns.some((c) => c.column.kind === 'expr' && c.column.aggregate) || where.some(isAggregate),
    order: query.orderBy ? query.orderBy.map((text, i) => orderKey(text, columns, select, `orderBy.${i}`)) : defaultOrder(columns, select),
    names: names.length === 0 ? null : names,
    after: after === 'all' ? null : bound(after, 'after', zone, input.now),
    before: bound(query.before ?? new Date(input.now + 5_000).toISOString(), 'before', zone, input.now),
  }
}
