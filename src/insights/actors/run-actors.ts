import type { QueryEvent, QueryInput, QuerySource } from '../engine/data.js'
import { QueryRefused } from '../errors.js'
import { compileProperties, noNeeds, type RowTest } from '../properties/compile-filters.js'
import type { RowContext } from '../properties/row-context.js'
import type { ActorsQuery } from '../schema/other-queries.js'
import { actorCell, actorColumn, defaultColumns, sortValue, typeOfColumn, type ActorColumn, type ActorRow } from './actor-columns.js'
import type { Drill } from './drill.js'
import { funnelActors } from './funnel-actors.js'
import { lifecycleActors, retentionActors, stickinessActors } from './insight-actors.js'
import { trendsActors } from './trends-actors.js'

export interface ActorsResponse {
  readonly results: unknown[][]
  readonly columns: string[]
  readonly types: string[]
  readonly hasMore: boolean
  readonly limit: number
  readonly offset: number
  /** Actors of the page the store no longer has (shown as `{id}`); null without an actor column. */
  readonly missing_actors_count: number | null
  readonly timezone: string
}

const DEFAULT_LIMIT = 100
type Source = NonNullable<ActorsQuery['source']>

/** The actors behind the data point an actors query's source names. */
const drillOf = (node: Source, input: QueryInput, source: QuerySource): Promise<Drill> => {
  const insight = node.kind === 'HogQLQuery' ? null : node.source
  switch (node.kind) {
    case 'HogQLQuery': throw new QueryRefused('Actors of a HogQL query are not supported: Hedgelog does not run HogQL.', 'unsupported_query', 'source')
    case 'FunnelsActorsQuery':
      if (insight?.kind !== 'FunnelsQuery') throw new QueryRefused('A FunnelsActorsQuery needs a FunnelsQuery source.', 'invalid_input', 'source.source')
      return funnelActors(node, insight, input, source)
    case 'StickinessActorsQuery':
      if (insight?.kind !== 'StickinessQuery') throw new QueryRefused('A StickinessActorsQuery needs a StickinessQuery source.', 'invalid_input', 'source.source')
      return stickinessActors(node, insight, input, source)
    case 'InsightActorsQuery':
      switch (insight!.kind) {
        case 'TrendsQuery': return trendsActors(node, insight!, input, source)
        case 'StickinessQuery': return stickinessActors(node, insight!, input, source)
        case 'LifecycleQuery': return lifecycleActors(node, insight!, input, source)
        case 'RetentionQuery': return retentionActors(node, insight!, input, source)
        case 'FunnelsQuery': throw new QueryRefused('The actors of a funnel step come from a FunnelsActorsQuery (funnelStep).', 'invalid_input', 'source.kind')
      }
  }
}

/** Person filters and `search` (email, name, id or a distinct id; a group's name or key), as PostHog's strategies apply them. */
const actorFilter = (query: ActorsQuery, drill: Drill, now: number): ((row: ActorRow) => boolean) | null => {
  const search = query.search?.trim().toLowerCase() ?? ''
  const persons = drill.groupTypeIndex === null
  const hasFilters = persons && ((query.properties !== undefined && query.properties !== null) || (query.fixedProperties?.length ?? 0) > 0)
  if (search === '' && !hasFilters) return null
  const needs = noNeeds()
  const tests: RowTest[] = persons ? [compileProperties(query.properties, now, needs), compileProperties(query.fixedProperties, now, needs)] : []
  const hit = (value: unknown) => typeof value === 'string' ? value.toLowerCase().includes(search) : value !== undefined && value !== null && JSON.stringify(value).toLowerCase().includes(search)
  return (row) => {
    const properties = row.person?.properties ?? row.group?.properties ?? {}
    if (search !== '') {
      const fields = persons ? [properties['email'], properties['name'], row.id, ...(row.person?.distinctIds ?? [])] : [properties['name'], row.id]
      if (!fields.some(hit)) return false
    }
    const event = { uuid: '', event: '', timestamp: 0, distinctId: row.person?.distinctIds[0] ?? '', personId: row.id, personCreatedAt: row.person?.createdAt ?? 0, properties: {}, personProperties: properties } as QueryEvent
    const context: RowContext = { event, session: null, groupKey: () => null, groupProperties: () => null }
    return tests.every((test) => test(context))
  }
}

interface OrderItem {
  readonly column: ActorColumn
  readonly descending: boolean
}

/**
 * `orderBy` items (one string may hold several, comma separated). By default: created_at, newest
 * first, when selected, else the first column (the actor column sorting by id, as PostHog's
 * default sorts by the persons table's id; an explicit `person` order sorts by email).
 */
const orderOf = (query: ActorsQuery, texts: readonly string[], drill: Drill): OrderItem[] => {
  if (!query.orderBy && !texts.includes('created_at') && texts.length > 0 && actorColumn(texts[0]!, drill, 'select.0').kind === 'actor') {
    return [{ column: { kind: 'id' }, descending: false }]
  }
  const items = query.orderBy ?? (texts.includes('created_at') ? ['created_at DESC'] : texts.slice(0, 1))
  return items.flatMap((text, i) => text.split(',').map((part) => {
    const match = /^\s*([\s\S]*?)(?:\s+(asc|desc))?\s*$/i.exec(part)!
    return { column: actorColumn(match[1]!, drill, `orderBy.${i}`), descending: match[2]?.toLowerCase() === 'desc' }
  }))
}

const compareRows = (order: readonly OrderItem[], groupTypeIndex: number | null) => (a: ActorRow, b: ActorRow): number => {
  for (const { column, descending } of order) {
    const x = sortValue(column, a, groupTypeIndex)
    const y = sortValue(column, b, groupTypeIndex)
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1
      continue
    }
    const diff = typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0
    if (diff !== 0) return descending ? -diff : diff
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** Looks up the persons or groups of some actors. */
const withActors = async (rows: ActorRow[], drill: Drill, source: QuerySource): Promise<ActorRow[]> => {
  if (drill.groupTypeIndex !== null) {
    const groups = await source.groups(drill.groupTypeIndex)
    return rows.map((row) => ({ ...row, group: groups.get(row.id) }))
  }
  const persons = rows.length === 0 ? new Map() : await source.persons(rows.map((row) => row.id))
  return rows.map((row) => ({ ...row, person: persons.get(row.id) }))
}

/**
 * Runs an ActorsQuery over an insight's data point: the actors behind it, filtered, ordered and
 * paginated (`limit`, 100 by default, after `offset`), with the columns asked for.
 */
export const runActors = async (query: ActorsQuery, input: QueryInput, source: QuerySource): Promise<ActorsResponse> => {
  if (!query.source) throw new QueryRefused('An actors query needs a source: the insight data point whose actors to list.', 'invalid_input', 'source')
  const drill = await drillOf(query.source, input, source)
  const texts = query.select && query.select.length > 0 ? query.select : defaultColumns(drill)
  const columns = texts.map((text, i) => actorColumn(text, drill, `select.${i}`))
  const order = orderOf(query, texts, drill)
  const filter = actorFilter(query, drill, input.now)
  const readsActors = filter !== null || order.some(({ column }) => column.kind !== 'id' && column.kind !== 'event_count')
  let rows: ActorRow[] = [...drill.actors].map(([id, facts]) => ({ id, facts }))
  if (readsActors) rows = await withActors(rows, drill, source)
  if (filter !== null) rows = rows.filter(filter)
  rows.sort(compareRows(order, drill.groupTypeIndex))
  const limit = query.limit ?? DEFAULT_LIMIT
  const offset = query.offset ?? 0
  let page = rows.slice(offset, offset + limit)
  if (!readsActors) page = await withActors(page, drill, source)
  const shown = columns.some((column) => column.kind === 'actor')
  return {
    results: page.map((row) => columns.map((column) => actorCell(column, row, drill.groupTypeIndex))),
    columns: texts,
    types: columns.map(typeOfColumn),
    hasMore: rows.length > offset + limit,
    limit, offset,
    missing_actors_count: shown ? page.filter((row) => row.person === undefined && row.group === undefined).length : null,
    timezone: input.environment.timezone,
  }
}
