import { type JsonObject, isJsonObject } from '../eventlog/port.js'
import { setOwn } from '../kernel/own-value.js'

/** Deep equality of JSON values: what "the value differs" means for a property update. */
export const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  if (Array.isArray(b)) return false
  const aKeys = Object.keys(a)
  if (aKeys.length !== Object.keys(b).length) return false
  return aKeys.every((key) => Object.hasOwn(b, key) && jsonEqual((a as JsonObject)[key], (b as JsonObject)[key]))
}

/**
 * A shallow copy. Copying key by key (not with a spread) lets V8 share one object shape across
 * objects with the same keys, which keeps adding keys to the copy cheap. A key named `__proto__`
 * is copied as a key like any other, as PostHog stores it.
 */
export const copyOf = (object: JsonObject): JsonObject => {
  const out: JsonObject = {}
  for (const key in object) setOwn(out, key, object[key])
  return out
}

/** A copy of `base` with `overrides` on top (or `base` itself when `overrides` is not an object). */
export const overlay = (base: JsonObject, overrides: unknown): JsonObject => {
  if (!isJsonObject(overrides)) return base
  const out = copyOf(base)
  for (const key in overrides) setOwn(out, key, overrides[key])
  return out
}

/** NUL is not allowed in stored text; PostHog replaces it with U+FFFD. */
export const sanitise = (text: string): string => (text.includes('\0') ? text.replace(/\0/g, '\uFFFD') : text)
