/**
 * Reads an EventStoreDB log has sent, by purpose: `head` (the newest position, polled by the head
 * watcher and asked by `headPosition`), `quietScan` (records between a subscription's last
 * delivery and the head) and `other` (reads callers asked for). Subscriptions are streams, not
 * reads, and are not counted.
 */
export interface ReadCounts {
  head: number
  quietScan: number
  other: number
}

export const newReadCounts = (): ReadCounts => ({ head: 0, quietScan: 0, other: 0 })

export const totalReads = (counts: ReadCounts): number => counts.head + counts.quietScan + counts.other
