import type { JsonObject } from '../../eventlog/port.js'
import { parseElementsChain } from '../../events/elements.js'
import { NAME_PROPERTIES } from '../../persons/person-shape.js'
import type { QueryEvent, QueryPerson } from '../engine/data.js'
import type { RowContext } from '../properties/row-context.js'
import { propertyText } from '../properties/value-tests.js'
import { isoDateTime } from '../time/labels.js'
import { openZone, type Zone } from '../time/zone.js'
import { evaluate, isDateTime, type Value } from './hogql-eval.js'
import { isAggregate, parseColumn, type Expr } from './hogql-parser.js'

/** A select column: the whole event (`*`), the person, the person's display name, or an expression. */
export type Column =
  | { readonly kind: 'star' }
  | { readonly kind: 'person' }
  | { readonly kind: 'display_name' }
  | { readonly kind: 'expr'; readonly expr: Expr; readonly aggregate: boolean }

export interface SelectColumn {
  /** As the response's `columns` lists it: the select text, or its alias. */
  readonly name: string
  readonly column: Column
}

/** The column's text before a `-- label` comment, which PostHog's tables append. */
export const bareColumn = (text: string): string => text.split('--')[0]!.trim()

export const parseSelect = (select: readonly string[]): SelectColumn[] =>
  select.map((text, i) => {
    const bare = bareColumn(text)
    if (bare === '*') return { name: text, column: { kind: 'star' } }
    if (bare === 'person') return { name: text, column: { kind: 'person' } }
    if (bare === 'person_display_name') return { name: text, column: { kind: 'display_name' } }
    const { expr, alias } = parseColumn(text, `select.${i}`)
    return { name: alias ?? text, column: { kind: 'expr', expr, aggregate: isAggregate(expr) } }
  })

const UTC = openZone('UTC')

/** A datetime as PostHog's JSON writes one: in the project's zone, microseconds when not whole seconds. */
export const jsonTime = (instant: number, zone: Zone): string => isoDateTime(zone.toLocal(instant), zone)

/** PostHog's default person display name: the first naming property, else the distinct id. */
export const displayName = (event: QueryEvent): string => {
  for (const key of NAME_PROPERTIES) {
    const text = propertyText(event.personProperties[key])
    if (text !== null) return text
  }
  return event.distinctId
}

/** The `*` column: the event as PostHog's events query returns it. */
export const eventObject = (event: QueryEvent, zone: Zone, teamId: number): JsonObject => {
  const chain = event.elementsChain ?? ''
  const out: JsonObject = {
    uuid: event.uuid,
    event: event.event,
    properties: event.properties,
    timestamp: jsonTime(event.timestamp, zone),
    team_id: teamId,
    distinct_id: event.distinctId,
    elements_chain: chain,
    created_at: jsonTime(event.createdAt ?? event.timestamp, zone),
    person_mode: event.properties['$process_person_profile'] === false ? 'propertyless' : 'full',
  }
  if (chain !== '') out['elements'] = parseElementsChain(chain)
  return out
}

/** The `person` column: the person now, or only the distinct id when the person is gone. */
export const personObject = (event: QueryEvent, person: QueryPerson | undefined): JsonObject =>
  person === undefined
    ? { distinct_id: event.distinctId }
    : { uuid: person.id, created_at: jsonTime(person.createdAt, UTC), properties: person.properties, distinct_id: event.distinctId }

export const jsonValue = (value: Value, zone: Zone): unknown => (isDateTime(value) ? jsonTime(value.instant, zone) : value)

/** One output cell. */
export const cellOf = (column: Column, row: RowContext | null, count: number, persons: ReadonlyMap<string, QueryPerson>, zone: Zone, teamId: number): unknown => {
  switch (column.kind) {
    case 'star': return row === null ? null : eventObject(row.event, zone, teamId)
    case 'person': return row === null ? null : personObject(row.event, persons.get(row.event.personId))
    case 'display_name': return row === null ? null : { display_name: displayName(row.event), id: row.event.personId, distinct_id: row.event.distinctId }
    case 'expr': return jsonValue(evaluate(column.expr, { row, count, zone }), zone)
  }
}

/** ClickHouse-style type names for `types`. */
export const typeOf = (column: Column): string => {
  switch (column.kind) {
    case 'star': return 'Tuple(UUID, String, String, DateTime64(6), Int64, String, String, DateTime64(6), String)'
    case 'person': return 'String'
    case 'display_name': return 'Tuple(String, String, String)'
    case 'expr': {
      const { expr } = column
      if (expr.kind === 'call' && expr.name === 'count') return 'UInt64'
      if (expr.kind === 'field' && (expr.field === 'timestamp' || expr.field === 'created_at')) return "DateTime64(6, 'UTC')"
      if (expr.kind === 'compare' || expr.kind === 'and' || expr.kind === 'or' || expr.kind === 'not' || expr.kind === 'is_null') return 'Bool'
      return 'Nullable(String)'
    }
  }
}
