/**
 * `record[key]` when the record holds `key` itself, else undefined. For lookups keyed by what a
 * client sent: `toString`, `constructor` or `__proto__` must find nothing, not Object.prototype's.
 */
export const ownValue = <V>(record: Readonly<Record<string, V>>, key: string): V | undefined =>
  (Object.hasOwn(record, key) ? record[key] : undefined)

/**
 * `record[key] = value` as an own key whatever the key: assigning to `__proto__` would set the
 * record's prototype instead, dropping the value or, for an object, adopting its keys.
 */
export const setOwn = <V>(record: Record<string, V>, key: string, value: NoInfer<V>): void => {
  if (key === '__proto__') Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true })
  else record[key] = value
}
