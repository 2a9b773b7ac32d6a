import { compileFilterDate, parsePropertyDate, propertyDate, resolveFilterDate } from './dates.js'
import type { PropertyFilter } from './definitions.js'
import { noMatch, type MatchContext, type Matcher } from './match-context.js'
import { compilePattern } from './regex.js'
import { caretRange, compareVersions, inRange, parseVersion, tildeRange, wildcardRange, type VersionRange } from './semver.js'
import { asciiLower, hasProperty, isBooleanLike, isTruthy, stringRepresentation, toF64 } from './values.js'

/** Decides on the filtered property's value; called only when the property is present. */
type ValueTest = (value: unknown) => boolean

/** A matcher for a value-testing operator, with the server's answer when the property is missing. */
const onValue = (key: string, test: ValueTest, whenMissing: boolean): Matcher => (context) =>
  hasProperty(context.props, key) ? test(context.props[key]) : whenMissing

const exactTest = (expected: unknown): ValueTest => {
  if (isBooleanLike(expected)) {
    const truthy = isTruthy(expected)
    return (value) => isTruthy(value) === truthy
  }
  if (Array.isArray(expected)) {
    const allowed = new Set(expected.map((item) => stringRepresentation(item).toLowerCase()))
    return (value) => allowed.has(stringRepresentation(value).toLowerCase())
  }
  const target = stringRepresentation(expected).toLowerCase()
  return (value) => stringRepresentation(value).toLowerCase() === target
}

const textTest = (expected: unknown, test: (haystack: string, needle: string) => boolean): ValueTest => {
  const needle = asciiLower(stringRepresentation(expected))
  return (value) => test(asciiLower(stringRepresentation(value)), needle)
}

const anyContainedTest = (expected: unknown): ValueTest => {
  const needles = (Array.isArray(expected) ? expected : [expected]).map((item) => asciiLower(stringRepresentation(item)))
  return (value) => {
    const haystack = asciiLower(stringRepresentation(value))
    return needles.some((needle) => haystack.includes(needle))
  }
}

const numericTest = (expected: unknown, compare: (a: number, b: number) => boolean): ValueTest | null => {
  const bound = toF64(expected)
  if (bound === null) return null
  return (value) => {
    const number = toF64(value)
    return number !== null && compare(number, bound)
  }
}

const betweenBounds = (expected: unknown): readonly [number, number] | null => {
  if (!Array.isArray(expected) || expected.length !== 2) return null
  const low = toF64(expected[0])
  const high = toF64(expected[1])
  if (low === null || high === null || Number.isNaN(low) || Number.isNaN(high) || low > high) return null
  return [low, high]
}

const semverCompareTest = (expected: unknown, accept: (order: number) => boolean): ValueTest | null => {
  const bound = parseVersion(expected)
  if (bound === null) return null
  return (value) => {
    const version = parseVersion(value)
    return version !== null && accept(compareVersions(version, bound))
  }
}

const semverRangeTest = (range: VersionRange | null): ValueTest | null => {
  if (range === null) return null
  return (value) => {
    const version = parseVersion(value)
    return version !== null && inRange(version, range)
  }
}

const rangeOf = (operator: string, expected: unknown): VersionRange | null => {
  if (operator === 'semver_wildcard') return wildcardRange(expected)
  const version = parseVersion(expected)
  if (version === null) return null
  return operator === 'semver_tilde' ? tildeRange(version) : caretRange(version)
}

/**
 * A property as a date. Strings are parsed once however many filters read them (once per
 * request, or once while a person's properties are remembered), and resolved against the
 * request's clock each time.
 */
const contextDate = (context: MatchContext, value: unknown): number | null => {
  if (typeof value !== 'string') return propertyDate(value, context.nowMs)
  const dates = context.dates ??= new Map()
  let date = dates.get(value)
  if (date === undefined) {
    date = parsePropertyDate(value)
    dates.set(value, date)
  }
  return date === null ? null : resolveFilterDate(date, context.nowMs)
}

const dateMatcher = (key: string, expected: unknown, accept: (property: number, filter: number) => boolean): Matcher => {
  const filterDate = compileFilterDate(expected)
  if (filterDate === null) return noMatch
  return (context) => {
    if (!hasProperty(context.props, key)) return false
    const property = contextDate(context, context.props[key])
    return property !== null && accept(property, resolveFilterDate(filterDate, context.nowMs))
  }
}

/** Whether a filter's matcher reads the clock: the date operators resolve relative dates against `nowMs`. */
export const readsClock = (filter: PropertyFilter): boolean =>
  filter.operator === 'is_date_before' || filter.operator === 'is_date_after' || filter.operator === 'is_date_exact'

const orNever = (key: string, test: ValueTest | null, whenMissing = false): Matcher =>
  test === null ? noMatch : onValue(key, test, whenMissing)

/**
 * Compiles a person or group property filter with the server's semantics: every operator has
 * a defined answer for a missing property, and a value that cannot be read as the operator
 * needs (a number, a date, a version, a valid pattern) is simply no match. The key the matcher
 * reads is added to `reads`.
 */
export const compilePropertyFilter = (filter: PropertyFilter, reads: Set<string>): Matcher => {
  const { key } = filter
  reads.add(key)
  const operator = filter.operator ?? 'exact'
  if (operator === 'is_set') return (context) => hasProperty(context.props, key)
  if (operator === 'is_not_set') return (context) => !hasProperty(context.props, key)
  const expected = filter.value
  if (expected === undefined || expected === null) return noMatch
  switch (operator) {
    case 'exact': return onValue(key, exactTest(expected), false)
    case 'is_not': {
      const test = exactTest(expected)
      return onValue(key, (value) => !test(value), true)
    }
    case 'icontains': return onValue(key, textTest(expected, (h, n) => h.includes(n)), false)
    case 'not_icontains': return onValue(key, textTest(expected, (h, n) => !h.includes(n)), true)
    case 'starts_with': return onValue(key, textTest(expected, (h, n) => h.startsWith(n)), false)
    case 'not_starts_with': return onValue(key, textTest(expected, (h, n) => !h.startsWith(n)), true)
    case 'ends_with': return onValue(key, textTest(expected, (h, n) => h.endsWith(n)), false)
    case 'not_ends_with': return onValue(key, textTest(expected, (h, n) => !h.endsWith(n)), true)
    case 'icontains_multi': return onValue(key, anyContainedTest(expected), false)
    case 'not_icontains_multi': {
      const test = anyContainedTest(expected)
      return onValue(key, (value) => !test(value), true)
    }
    case 'regex':
    case 'not_regex': {
      const pattern = compilePattern(stringRepresentation(expected))
      const wanted = operator === 'regex'
      if (pattern === null) return (context) => !wanted && !hasProperty(context.props, key)
      return onValue(key, (value) => pattern.test(stringRepresentation(value)) === wanted, !wanted)
    }
    case 'gt': return orNever(key, numericTest(expected, (a, b) => a > b))
    case 'gte': return orNever(key, numericTest(expected, (a, b) => a >= b))
    case 'lt': return orNever(key, numericTest(expected, (a, b) => a < b))
    case 'lte': return orNever(key, numericTest(expected, (a, b) => a <= b))
    case 'between':
    case 'not_between': {
      const bounds = betweenBounds(expected)
      const inside = operator === 'between'
      if (bounds === null) return (context) => !inside && !hasProperty(context.props, key)
      return onValue(key, (value) => {
        const number = toF64(value)
        if (number === null || Number.isNaN(number)) return false
        return (number >= bounds[0] && number <= bounds[1]) === inside
      }, !inside)
    }
    case 'is_date_before': return dateMatcher(key, expected, (property, bound) => property < bound)
    case 'is_date_after': return dateMatcher(key, expected, (property, bound) => property > bound)
    case 'is_date_exact': return dateMatcher(key, expected, (property, bound) => property === bound)
    case 'semver_eq': return orNever(key, semverCompareTest(expected, (order) => order === 0))
    case 'semver_neq': return orNever(key, semverCompareTest(expected, (order) => order !== 0))
    case 'semver_gt': return orNever(key, semverCompareTest(expected, (order) => order > 0))
    case 'semver_gte': return orNever(key, semverCompareTest(expected, (order) => order >= 0))
    case 'semver_lt': return orNever(key, semverCompareTest(expected, (order) => order < 0))
    case 'semver_lte': return orNever(key, semverCompareTest(expected, (order) => order <= 0))
    case 'semver_tilde':
    case 'semver_caret':
    case 'semver_wildcard': return orNever(key, semverRangeTest(rangeOf(operator, expected)))
    default: return noMatch
  }
}
