import { parseElementsChain, type Element } from '../../events/elements.js'
import { QueryRefused } from '../errors.js'
import type { AnyPropertyFilter, PropertyGroup, PropertyOperator } from '../schema/property-filters.js'
import type { RowContext } from './row-context.js'
import { compileValueTest, propertyText, type TextTest } from './value-tests.js'
import { ownValue } from '../../kernel/own-value.js'

export type RowTest = (row: RowContext) => boolean

/** What compiled filters, breakdowns and series read beyond the event's name, time and person. */
export interface Needs {
  sessions: boolean
  readonly groupTypes: Set<number>
  /** The event's own properties or elements chain. */
  eventProperties: boolean
}

export const noNeeds = (): Needs => ({ sessions: false, groupTypes: new Set(), eventProperties: false })

/** Whether rows must carry their events' properties: sessions and groups are found through them too. */
export const readsEventProperties = (needs: Needs): boolean => needs.eventProperties || needs.sessions || needs.groupTypes.size > 0

const METADATA: Readonly<Record<string, (row: RowContext) => unknown>> = {
  distinct_id: (row) => row.event.distinctId,
  event: (row) => row.event.event,
  person_id: (row) => row.event.personId,
  uuid: (row) => row.event.uuid,
  timestamp: (row) => new Date(row.event.timestamp).toISOString(),
}

const NEGATIVE: Partial<Record<PropertyOperator, PropertyOperator>> = {
  is_not: 'exact', not_in: 'in', not_icontains: 'icontains', not_regex: 'regex', is_not_set: 'is_set',
}

const elementValue = (element: Element, key: string): string | null =>
  key === 'tag_name' ? element.tag_name : key === 'text' ? element.text : element.href

/** An element filter holds when any element of the chain matches (none, for a negative operator). */
const elementTest = (key: string, operator: PropertyOperator, value: unknown, now: number): RowTest => {
  if (key === 'selector') throw new QueryRefused('Element filters on a CSS selector are not supported yet.', 'unsupported_query')
  const positive = ownValue(NEGATIVE, operator)
  const test = compileValueTest(positive ?? operator, value, now)
  return (row) => {
    const elements = parseElementsChain(row.event.elementsChain ?? '')
    const any = elements.some((element) => test(elementValue(element, key)))
    return positive === undefined ? any : !any
  }
}

const valueReader = (filter: AnyPropertyFilter & { key: string }, needs: Needs): ((row: RowContext) => unknown) => {
  const { key } = filter
  switch (filter.type) {
    case 'event':
      needs.eventProperties = true
      return (row) => ownValue(row.event.properties, key)
    case 'person': return (row) => ownValue(row.event.personProperties, key)
    case 'session':
      needs.sessions = true
      return (row) => (row.session ? ownValue(row.session, key) : undefined)
    case 'group': {
      const index = (filter as { group_type_index?: number | null }).group_type_index
      if (index === undefined || index === null) throw new QueryRefused('A group property filter needs group_type_index.', 'invalid_input', 'group_type_index')
      needs.groupTypes.add(index)
      return (row) => {
        const properties = row.groupProperties(index)
        return properties ? ownValue(properties, key) : undefined
      }
    }
    case 'event_metadata': {
      const read = ownValue(METADATA, key)
      if (read) return read
      needs.eventProperties = true
      return (row) => (key.startsWith('$group_') ? row.groupKey(Number(key.slice(7))) : undefined)
    }
    default: throw new QueryRefused(`Property filters of type ${filter.type} are not supported.`, 'unsupported_query')
  }
}

/** Compiles one filter into a row test, noting in `needs` what it reads. */
export const compileFilter = (filter: AnyPropertyFilter, now: number, needs: Needs): RowTest => {
  switch (filter.type) {
    case 'cohort': throw new QueryRefused('Cohort filters are not supported yet: Hedgelog has no cohorts.', 'unsupported_query')
    case 'hogql': throw new QueryRefused('HogQL filters are not supported: Hedgelog does not run HogQL.', 'unsupported_query')
    case 'event': case 'person': case 'session': case 'group': case 'event_metadata': case 'element': break
    default: throw new QueryRefused(`Property filters of type ${filter.type} are not supported.`, 'unsupported_query')
  }
  const { key, value } = filter
  const operator = (filter.operator ?? 'exact') as PropertyOperator
  if (filter.type === 'element') {
    needs.eventProperties = true
    return elementTest(key, operator, value, now)
  }
  const read = valueReader(filter, needs)
  const test: TextTest = compileValueTest(operator, value, now)
  return (row) => test(propertyText(read(row)))
}

const isGroup = (item: AnyPropertyFilter | PropertyGroup): item is PropertyGroup => item.type === 'AND' || item.type === 'OR'

const combine = (tests: RowTest[], all: boolean): RowTest => {
  if (tests.length === 0) return () => true
  if (tests.length === 1) return tests[0]!
  return all ? (row) => tests.every((test) => test(row)) : (row) => tests.some((test) => test(row))
}

const compileGroup = (group: PropertyGroup, now: number, needs: Needs): RowTest =>
  combine(group.values.map((item) => (isGroup(item) ? compileGroup(item, now, needs) : compileFilter(item, now, needs))), group.type === 'AND')

/** Compiles `properties` (a list, ANDed, or an AND/OR group) into one row test. */
export const compileProperties = (
  properties: readonly AnyPropertyFilter[] | PropertyGroup | null | undefined, now: number, needs: Needs,
): RowTest => {
  if (properties === null || properties === undefined) return () => true
  if (Array.isArray(properties)) return combine(properties.map((filter) => compileFilter(filter, now, needs)), true)
  return compileGroup(properties as PropertyGroup, now, needs)
}
