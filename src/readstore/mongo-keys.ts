import type { JsonObject } from '../eventlog/port.js'
import { assertField } from './port.js'

export interface StoredDocument {
  _id: string
  [key: string]: unknown
}

/**
 * Mongo refuses or misreads keys with dots, a leading `$` or a NUL, and PostHog property names
 * such as `$browser` are common. Those characters are percent-encoded, `%` itself included, so
 * decoding is exact; a top-level `_id` key is encoded too, as `_id` holds the document id.
 */
export const escapeKey = (key: string): string =>
  key.replace(/[%.\0]|^\$/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)

export const unescapeKey = (key: string): string =>
  key.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

/** escapeKey never yields `_id` from another key, so this can run before or after it. */
const escapeId = (key: string): string => (key === '_id' ? '%5Fid' : key)

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

const renameKeys = (value: Record<string, unknown>, rename: (key: string) => string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).map(([key, v]) => [rename(key), v]))

/** Through JSON first, so that what is stored is exactly what the SQLite store would store. */
export const toStored = (doc: JsonObject): Record<string, unknown> => {
  const escape = (_: string, value: unknown): unknown => (isPlainObject(value) ? renameKeys(value, escapeKey) : value)
  return renameKeys(JSON.parse(JSON.stringify(doc), escape) as Record<string, unknown>, escapeId)
}

const fromStoredValue = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(fromStoredValue)
    : isPlainObject(value) ? Object.fromEntries(Object.entries(value).map(([key, v]) => [unescapeKey(key), fromStoredValue(v)]))
      : value

export const fromStored = <T extends JsonObject>({ _id, ...doc }: StoredDocument): T => fromStoredValue(doc) as T

/** A dotted field as stored: every segment escaped, the first as a top-level key. */
export const storedPath = (field: string): string => {
  assertField(field)
  return field.split('.').map((segment, i) => (i === 0 ? escapeId(escapeKey(segment)) : escapeKey(segment))).join('.')
}

