import { propertyDate, compileFilterDate, resolveFilterDate } from '../../decide/dates.js'
import { compilePattern } from '../../decide/regex.js'
import { stringRepresentation, toF64 } from '../../decide/values.js'
import { QueryRefused } from '../errors.js'
import type { PropertyOperator } from '../schema/property-filters.js'

/** A property's value as HogQL compares untyped properties: JSON text without quotes; null when null or missing. */
export const propertyText = (value: unknown): string | null => (value === undefined || value === null ? null : stringRepresentation(value))

/** Decides on a property's text (null when the property is null or missing). */
export type TextTest = (text: string | null) => boolean

const always: TextTest = () => true

const number = (text: string | null): number | null => {
  if (text === null) return null
  const parsed = toF64(text)
  return parsed === null || Number.isNaN(parsed) ? null : parsed
}

const needNumber = (value: unknown, operator: string): number => {
  const parsed = typeof value === 'number' ? value : toF64(stringRepresentation(value))
  if (parsed === null || Number.isNaN(parsed)) throw new QueryRefused(`The ${operator} operator needs a number, not ${JSON.stringify(value)}.`)
  return parsed
}

const betweenTest = (value: unknown, inside: boolean, operator: string): TextTest => {
  if (!Array.isArray(value) || value.length !== 2) throw new QueryRefused(`The ${operator} operator needs a list of two numbers.`)
  const low = needNumber(value[0], operator)
  const high = needNumber(value[1], operator)
  if (low > high) throw new QueryRefused(`The ${operator} operator needs its first number to be at most its second.`)
  return (text) => {
    const n = number(text)
    return n !== null && (n >= low && n <= high) === inside
  }
}

const dateTest = (value: unknown, now: number, operator: string, accept: (property: number, bound: number) => boolean): TextTest => {
  const filterDate = compileFilterDate(stringRepresentation(value))
  if (filterDate === null) throw new QueryRefused(`The ${operator} operator needs a date, not ${JSON.stringify(value)}.`)
  const bound = resolveFilterDate(filterDate, now)
  return (text) => {
    if (text === null) return false
    const date = propertyDate(text, now)
    return date !== null && accept(date, bound)
  }
}

const ordered = (value: unknown, operator: string, accept: (n: number, bound: number) => boolean): TextTest => {
  const bound = needNumber(value, operator)
  return (text) => {
    const n = number(text)
    return n !== null && accept(n, bound)
  }
}

/** The test of one scalar filter value. */
const scalarTest = (operator: PropertyOperator, value: unknown, now: number): TextTest => {
  const expected = stringRepresentation(value)
  switch (operator) {
    case 'exact':
    case 'in':
    case 'is_cleaned_path_exact': return (text) => text === expected
    case 'is_not':
    case 'not_in': return (text) => text !== expected
    case 'icontains': {
      const needle = expected.toLowerCase()
      return (text) => text !== null && text.toLowerCase().includes(needle)
    }
    case 'not_icontains': {
      const needle = expected.toLowerCase()
      return (text) => text === null || !text.toLowerCase().includes(needle)
    }
    case 'regex':
    case 'not_regex': {
      const pattern = compilePattern(expected)
      if (pattern === null) throw new QueryRefused(`Invalid regular expression ${JSON.stringify(expected)}.`)
      return operator === 'regex' ? (text) => text !== null && pattern.test(text) : (text) => text === null || !pattern.test(text)
    }
    case 'gt': return ordered(value, operator, (n, b) => n > b)
    case 'gte':
    case 'min': return ordered(value, operator, (n, b) => n >= b)
    case 'lt': return ordered(value, operator, (n, b) => n < b)
    case 'lte':
    case 'max': return ordered(value, operator, (n, b) => n <= b)
    case 'is_date_exact': return dateTest(value, now, operator, (p, b) => p === b)
    case 'is_date_before': return dateTest(value, now, operator, (p, b) => p < b)
    case 'is_date_after': return dateTest(value, now, operator, (p, b) => p > b)
    default: throw new QueryRefused(`The ${operator} operator is not supported in insights yet.`, 'unsupported_query')
  }
}

/** Negative operators: several values must all hold (AND); the others need one (OR). */
const ALL_OF: ReadonlySet<string> = new Set(['is_not', 'not_in', 'not_icontains', 'not_regex'])

/**
 * Compiles an operator and filter value into a test on a property's text, with HogQL's rules:
 * NULL never matches a positive operator and always matches a negative one; a list means
 * "any of" (all of, for negative operators), one item is the scalar, an empty list matches
 * everything, and a filter without a value is ignored. Values that cannot work (an inverted
 * `between`, a pattern RE2 refuses, a bound that is not a number) are refused with a 400.
 */
export const compileValueTest = (operator: PropertyOperator, value: unknown, now: number): TextTest => {
  if (operator === 'is_set') return (text) => text !== null
  if (operator === 'is_not_set') return (text) => text === null
  if (operator === 'between' || operator === 'not_between') return betweenTest(value, operator === 'between', operator)
  if (value === undefined || value === null) return always
  if (!Array.isArray(value)) return scalarTest(operator, value, now)
  const items = value.filter((item) => item !== null)
  if (items.length === 0) return always
  const tests = items.map((item) => scalarTest(operator, item, now))
  if (tests.length === 1) return tests[0]!
  return ALL_OF.has(operator) ? (text) => tests.every((test) => test(text)) : (text) => tests.some((test) => test(text))
}
