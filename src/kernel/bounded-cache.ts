import { LRUCache } from 'lru-cache'

/** How much a cache keeps: entries at most, and optionally a summed size and an age. */
export interface CacheBounds<K, V> {
  /** Entries kept at most. */
  readonly max: number
  /** The sum of `sizeOf` over the entries kept at most; an entry larger than this is not kept. */
  readonly maxSize?: number
  /** An entry's size, a positive integer; needed with `maxSize`. */
  readonly sizeOf?: (value: V, key: K) => number
  /** How long after it was set an entry is answered, in milliseconds (> 0); forever when absent. */
  readonly ttlMs?: number
}

/**
 * The one way the process keeps a bounded cache in memory: an `LRUCache`, whose least recently
 * used entries go first once a bound is reached. `get` and `set` count as uses; `peek` and `has`
 * do not.
 */
export const boundedCache = <K extends {}, V extends {}>(bounds: CacheBounds<K, V>): LRUCache<K, V> => {
  if (bounds.ttlMs !== undefined && !(bounds.ttlMs > 0)) throw new RangeError(`a cache's ttl must be positive, not ${bounds.ttlMs}`)
  return new LRUCache<K, V>({
    max: bounds.max,
    ...(bounds.maxSize !== undefined ? { maxSize: bounds.maxSize, sizeCalculation: bounds.sizeOf } : {}),
    ...(bounds.ttlMs !== undefined ? { ttl: bounds.ttlMs } : {}),
  })
}
