/**
 * One share of a partitioned projection: the documents whose key hashes to `index` of `count`.
 * Several runners of one build, each with its own partition, checkpoint and place in the log,
 * write disjoint sets of documents, so together they leave what one runner would.
 */
export interface Partition {
  readonly index: number
  readonly count: number
}

/** The whole projection, as an unpartitioned runner builds it. */
export const WHOLE: Partition = { index: 0, count: 1 }

/**
 * The partition a key falls in: FNV-1a over its UTF-16 code units, mixed with MurmurHash3's
 * finaliser, modulo `count`. Without the mix, the low bits of an FNV hash depend only on the low
 * bits of each unit, so keys that differ in letter case alone would always share a partition
 * when `count` is a power of two.
 */
export const partitionOf = (key: string, count: number): number => {
  if (count <= 1) return 0
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b)
  hash ^= hash >>> 13
  hash = Math.imul(hash, 0xc2b2ae35)
  hash ^= hash >>> 16
  return (hash >>> 0) % count
}

/** Whether `partition` holds the documents of `key`. */
export const ownsKey = (partition: Partition, key: string): boolean =>
  partition.count <= 1 || partitionOf(key, partition.count) === partition.index

/** Partitions `0 … count - 1` of a projection. */
export const partitionsOf = (count: number): Partition[] =>
  Array.from({ length: Math.max(1, count) }, (_, index) => ({ index, count: Math.max(1, count) }))
