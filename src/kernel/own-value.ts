/**
 * `record[key]` when the record holds `key` itself, else undefined. For lookups keyed by what a
 * client sent: `toString`, `constructor` or `__proto__` must find nothing, not Object.prototype's.
 */
export const ownValue = <V>(record: Readonly<Record<string, V>>, key: string): V | undefined =>
  (Object.hasOwn(record, key) ? record[key] : undefined)
