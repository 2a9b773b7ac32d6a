import type { JsonObject } from '../eventlog/port.js'
import { assertField } from './port.js'

/** `a.b` → `'$."a"."b"'`; every segment quoted so `$`-keys work. */
export const jsonPath = (field: string): string => {
  assertField(field)
  return `'$.${field.split('.').map((s) => `"${s}"`).join('.')}'`
}

/** A field read from the JSON body (booleans as 1/0, as `json_extract` gives them). */
export const fromBody = (field: string): string => `json_extract(body, ${jsonPath(field)})`
/** A field's JSON type in the body: 'integer', 'real', 'text', 'true', 'object'… */
export const typeInBody = (field: string): string => `json_type(body, ${jsonPath(field)})`

/**
 * The column that keeps an indexed field's value beside each document, written from the document
 * at every write so that queries on the field read the column and parse no body. A column holds a
 * string or a number as itself, null for null or a missing field, and an object or an array as
 * its JSON text in a blob, so that it never compares or sorts as a string, as in MongoDB.
 *
 * Booleans are blobs too (their JSON text) in `v:` columns, so a number in one is a number in the
 * document. The `f:` columns of files written before hold booleans as 1 and 0, as `json_extract`
 * gives them; they are kept, and a number read from one is checked in the body.
 */
export interface FieldColumn {
  readonly field: string
  /** The column's name, quoted for SQL. */
  readonly sql: string
  /** Whether a number in the column is a number in the document (a `v:` column). */
  readonly numbersOnly: boolean
}

const COLUMN = /^([fv]):(.+)$/

/** The column of a field indexed now. */
export const newColumn = (field: string): FieldColumn => ({ field, sql: `"v:${field}"`, numbersOnly: true })

/** The field columns among a table's column names, by field. */
export const fieldColumns = (names: readonly string[]): Map<string, FieldColumn> => {
  const columns = new Map<string, FieldColumn>()
  for (const name of names) {
    const match = COLUMN.exec(name)
    if (match) columns.set(match[2]!, { field: match[2]!, sql: `"${name}"`, numbersOnly: match[1] === 'v' })
  }
  return columns
}

/** The value a column holds for a document, computed in JavaScript at write time: a write parses no JSON for its indexes. */
export const columnValue = (doc: JsonObject, column: FieldColumn): string | number | Buffer | null => {
  let value: unknown = doc
  for (const segment of column.field.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null
    value = (value as Record<string, unknown>)[segment]
  }
  if (value === undefined || value === null) return null
  if (typeof value === 'boolean' && !column.numbersOnly) return value ? 1 : 0
  if (typeof value === 'number' || typeof value === 'string') return value
  return Buffer.from(JSON.stringify(value))
}

/** `columnValue` in SQL, to fill a new column from the stored documents. */
export const columnValueFromBody = (column: FieldColumn): string => {
  const blobs = column.numbersOnly ? `('object', 'array', 'true', 'false')` : `('object', 'array')`
  return `CASE WHEN ${typeInBody(column.field)} IN ${blobs} THEN CAST(body -> ${jsonPath(column.field)} AS BLOB) ELSE ${fromBody(column.field)} END`
}
