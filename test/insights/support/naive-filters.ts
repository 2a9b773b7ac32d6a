import type { QueryEvent } from '../../../src/insights/engine/data.js'

/**
 * Property filters as PostHog documents them, from scratch: a value is its JSON text
 * (strings as they are), null or missing is NULL; positive operators never match NULL,
 * negative ones always do; a list is "any of" (all of, for negative operators).
 */
export interface NaiveFilter {
  type: 'event' | 'person'
  key: string
  operator: string
  value?: unknown
}
export interface NaiveGroup {
  type: 'AND' | 'OR'
  values: (NaiveFilter | NaiveGroup)[]
}

const text = (value: unknown): string | null => (value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value))
const num = (t: string | null): number | null => (t !== null && /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null)

const one = (operator: string, x: string | null, v: unknown): boolean => {
  const want = text(v)!
  switch (operator) {
    case 'exact': return x !== null && x === want
    case 'is_not': return x === null || x !== want
    case 'icontains': return x !== null && x.toLowerCase().includes(want.toLowerCase())
    case 'not_icontains': return x === null || !x.toLowerCase().includes(want.toLowerCase())
    case 'regex': return x !== null && new RegExp(want).test(x)
    case 'not_regex': return x === null || !new RegExp(want).test(x)
    case 'gt': return num(x) !== null && num(x)! > Number(v)
    case 'gte': return num(x) !== null && num(x)! >= Number(v)
    case 'lt': return num(x) !== null && num(x)! < Number(v)
    case 'lte': return num(x) !== null && num(x)! <= Number(v)
    default: throw new Error(`naive evaluator does not know ${operator}`)
  }
}

export const matchesFilter = (filter: NaiveFilter, event: QueryEvent): boolean => {
  const source = filter.type === 'event' ? event.properties : event.personProperties
  const x = text(source[filter.key])
  if (filter.operator === 'is_set') return x !== null
  if (filter.operator === 'is_not_set') return x === null
  if (filter.operator === 'between' || filter.operator === 'not_between') {
    const [a, b] = filter.value as [number, number]
    const n = num(x)
    if (n === null) return false
    return filter.operator === 'between' ? n >= a && n <= b : n < a || n > b
  }
  const values = Array.isArray(filter.value) ? filter.value : [filter.value]
  if (values.length === 0) return true
  const negative = ['is_not', 'not_icontains', 'not_regex'].includes(filter.operator)
  return negative ? values.every((v) => one(filter.operator, x, v)) : values.some((v) => one(filter.operator, x, v))
}

export const matchesAll = (filters: (NaiveFilter | NaiveGroup)[] | NaiveGroup | undefined, event: QueryEvent): boolean => {
  if (filters === undefined) return true
  if (!Array.isArray(filters)) {
    const results = filters.values.map((item) => matchesAll('values' in item ? item : [item], event))
    return results.length === 0 || (filters.type === 'AND' ? results.every(Boolean) : results.some(Boolean))
  }
  return filters.every((item) => ('values' in item ? matchesAll(item, event) : matchesFilter(item, event)))
}
