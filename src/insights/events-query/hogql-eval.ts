import { compilePattern, type Pattern } from '../../decide/regex.js'
import { toF64 } from '../../decide/values.js'
import type { RowContext } from '../properties/row-context.js'
import { propertyText } from '../properties/value-tests.js'
import { parseDateInput } from '../time/date-input.js'
import type { Zone } from '../time/zone.js'
import type { CompareOp, Expr } from './hogql-parser.js'
import { ownValue } from '../../kernel/own-value.js'

/** A datetime value (epoch ms); fields like `timestamp` are these, not strings. */
export interface DateTimeValue {
  readonly instant: number
}

export type Value = string | number | boolean | null | DateTimeValue

export const isDateTime = (value: Value): value is DateTimeValue => typeof value === 'object' && value !== null

/** What an expression is evaluated on: one event, or a group of events (the first one and how many). */
export interface Scope {
  readonly row: RowContext | null
  readonly count: number
  readonly zone: Zone
}

const fieldValue = (field: Expr & { kind: 'field' }, row: RowContext): Value => {
  const { event } = row
  switch (field.field) {
    case 'event': return event.event
    case 'timestamp': return { instant: event.timestamp }
    case 'created_at': return { instant: event.createdAt ?? event.timestamp }
    case 'distinct_id': return event.distinctId
    case 'uuid': return event.uuid
    case 'person_id': return event.personId
    case 'elements_chain': return event.elementsChain ?? ''
    case 'properties': return JSON.stringify(event.properties)
  }
}

/** A string as a datetime, the way ClickHouse reads one against a datetime column: naive text is in the project's zone. */
const asInstant = (text: string, zone: Zone): number | null => {
  const input = parseDateInput(text.trim())
  if (input === null || input.kind === 'relative') return null
  return input.kind === 'instant' ? input.instant : zone.toInstant(input.local)
}

const numeric = (value: Value): number | null =>
  typeof value === 'number' ? value : typeof value === 'boolean' ? Number(value) : typeof value === 'string' ? toF64(value) : null

/**
 * Orders two non-null values: datetimes against datetimes (strings read as datetimes), numbers
 * numerically (a string that is not a number cannot be compared with one: null), otherwise as
 * text. Null when they cannot be compared.
 */
export const order = (a: Exclude<Value, null>, b: Exclude<Value, null>, zone: Zone): number | null => {
  if (isDateTime(a) || isDateTime(b)) {
    const x = isDateTime(a) ? a.instant : typeof a === 'string' ? asInstant(a, zone) : null
    const y = isDateTime(b) ? b.instant : typeof b === 'string' ? asInstant(b, zone) : null
    return x === null || y === null ? null : x - y
  }
  if (typeof a === 'number' || typeof b === 'number') {
    const x = numeric(a)
    const y = numeric(b)
    return x === null || y === null ? null : x - y
  }
  const x = String(a)
  const y = String(b)
  return x < y ? -1 : x > y ? 1 : 0
}

const likePatterns = new Map<string, Pattern | null>()

/** SQL LIKE (`%` any run, `_` one character) as an anchored RE2 pattern, so no text can make it backtrack. */
const likePattern = (like: string, insensitive: boolean): Pattern | null => {
  const key = `${insensitive ? 'i' : 's'}${like}`
  if (!likePatterns.has(key)) {
    let body = ''
    for (let i = 0; i < like.length; i++) {
      const c = like[i]!
      if (c === '\\' && i + 1 < like.length) body += like[++i]!.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')
      else if (c === '%') body += '.*'
      else if (c === '_') body += '.'
      else body += c.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')
    }
    if (likePatterns.size > 1000) likePatterns.clear()
    likePatterns.set(key, compilePattern(`(?s${insensitive ? 'i' : ''})^${body}$`))
  }
  return likePatterns.get(key)!
}

const textOf = (value: Exclude<Value, null>): string => (isDateTime(value) ? new Date(value.instant).toISOString() : String(value))

const compare = (op: CompareOp, left: Value, right: Value | readonly Value[], zone: Zone): Value => {
  if (op === 'in' || op === 'not in') {
    if (left === null) return null
    const found = (right as readonly Value[]).some((item) => item !== null && order(left, item, zone) === 0)
    return op === 'in' ? found : !found
  }
  const other = right as Value
  if (left === null || other === null) return null
  if (op === 'like' || op === 'ilike' || op === 'not like' || op === 'not ilike') {
    const pattern = likePattern(textOf(other), op.includes('ilike'))
    if (pattern === null) return null
    const hit = pattern.test(textOf(left))
    return op.startsWith('not') ? !hit : hit
  }
  const diff = order(left, other, zone)
  if (diff === null) return null
  switch (op) {
    case '=': return diff === 0
    case '!=': return diff !== 0
    case '<': return diff < 0
    case '<=': return diff <= 0
    case '>': return diff > 0
    case '>=': return diff >= 0
  }
}

const call = (expr: Expr & { kind: 'call' }, scope: Scope): Value => {
  if (expr.name === 'count') return scope.count
  const args = expr.args.map((arg) => evaluate(arg, scope))
  const [first] = args
  switch (expr.name) {
    case 'coalesce': case 'ifNull': return args.find((value) => value !== null) ?? null
    case 'isNull': return first === null
    case 'isNotNull': return first !== null
    case 'toString': return first === null || first === undefined ? null : textOf(first)
    case 'lower': return typeof first === 'string' ? first.toLowerCase() : first ?? null
    case 'upper': return typeof first === 'string' ? first.toUpperCase() : first ?? null
  }
}

/** Evaluates an expression with SQL's nulls: a comparison with null is null, AND/OR/NOT are three-valued. */
export const evaluate = (expr: Expr, scope: Scope): Value => {
  switch (expr.kind) {
    case 'constant': return expr.value
    case 'field': return scope.row === null ? null : fieldValue(expr, scope.row)
    case 'property': {
      if (scope.row === null) return null
      const source = expr.of === 'event' ? scope.row.event.properties : scope.row.event.personProperties
      return propertyText(ownValue(source, expr.key))
    }
    case 'call': return call(expr, scope)
    case 'compare': {
      const right = Array.isArray(expr.right) ? expr.right.map((item) => evaluate(item, scope)) : evaluate(expr.right as Expr, scope)
      return compare(expr.op, evaluate(expr.left, scope), right, scope.zone)
    }
    case 'is_null': return (evaluate(expr.expr, scope) === null) !== expr.negated
    case 'not': {
      const value = truth(evaluate(expr.expr, scope))
      return value === null ? null : !value
    }
    case 'and': case 'or': {
      let unknown = false
      for (const item of expr.exprs) {
        const value = truth(evaluate(item, scope))
        if (value === null) unknown = true
        else if (value === (expr.kind === 'or')) return value
      }
      return unknown ? null : expr.kind === 'and'
    }
  }
}

/** A value as a condition: null stays unknown; numbers and text are true unless zero or empty. */
export const truth = (value: Value): boolean | null => {
  if (value === null) return null
  if (typeof value === 'boolean') return value
  if (typeof value === 'number') return value !== 0
  if (typeof value === 'string') return value !== '' && value !== '0' && value !== 'false'
  return true
}
