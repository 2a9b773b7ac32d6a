/**
 * `taskset -c 0 node dist/bench/cache-lookups.js`: one hit on each bounded cache as the hot paths
 * use it, hand-made (the Maps they replaced) against `boundedCache` (lru-cache), in ns per
 * lookup; the two alternate round by round in this process, medians of nine rounds.
 */
import { boundedCache } from '../src/kernel/bounded-cache.js'

const keys = Array.from({ length: 50 }, (_, i) => `flag-${i}`)
const tables = ['persons_v1_1', 'person_distinct_ids_v1_1']
/** A document id as the read paths build it for each request (`personKey` and the like): a new string each time. */
const idOf = (i: number): string => `2:${i.toString(36)}-${(i * 2654435761 >>> 0).toString(36)}`
const ids = Array.from({ length: 50 }, (_, i) => idOf(i))
const text = (key: string) => ({ key: JSON.stringify(key) })

// Flag keys' texts (decide, once per flag) and principals by key: one string-keyed get.
const plainMap = new Map(keys.map((key) => [key, text(key)]))
const lruMap = boundedCache<string, { key: string }>({ max: 10_000 })
for (const key of keys) lruMap.set(key, text(key))
// Project tokens: an expiring entry.
const ttlMap = new Map(keys.map((key) => [key, { environmentId: 1, expires: Date.now() + 3_600_000 }]))
const ttlLru = boundedCache<string, number>({ max: 10_000, ttlMs: 3_600_000 })
for (const key of keys) ttlLru.set(key, 1)
// Kept documents (decide's person, twice a request): by table then id, against one joined key.
const twoLevel = new Map(tables.map((table) => [table, new Map(ids.map((id) => [id, { stamp: 's', doc: null }]))]))
const joined = boundedCache<string, { stamp: string; doc: null }>({ max: 5000 })
for (const table of tables) for (const id of ids) joined.set(`${table}\u0000${id}`, { stamp: 's', doc: null })
// Folded aggregates (each command): get, then set again as most recent.
const folded = new Map(ids.map((id) => [id, { revision: 1n }]))
const foldedLru = boundedCache<string, { revision: bigint }>({ max: 1000 })
for (const id of ids) foldedLru.set(id, { revision: 1n })

let sink = 0
const cases: Record<string, [() => void, () => void]> = {
  'string key (flag texts, principals)': [
    () => { for (const key of keys) sink += plainMap.get(key)!.key.length },
    () => { for (const key of keys) sink += lruMap.get(key)!.key.length },
  ],
  'expiring entry (project tokens)': [
    () => { for (const key of keys) { const hit = ttlMap.get(key); if (hit && hit.expires > Date.now()) sink += hit.environmentId } },
    () => { for (const key of keys) sink += ttlLru.get(key) ?? 0 },
  ],
  'table and id (kept documents)': [
    () => { for (let i = 0; i < 50; i++) sink += twoLevel.get(tables[i & 1]!)!.get(idOf(i))!.stamp.length },
    () => { for (let i = 0; i < 50; i++) sink += joined.get(`${tables[i & 1]!}\u0000${idOf(i)}`)!.stamp.length },
  ],
  'get and set again (folded aggregates)': [
    () => { for (const id of ids) { const hit = folded.get(id)!; folded.delete(id); folded.set(id, hit); sink++ } },
    () => { for (const id of ids) { const hit = foldedLru.get(id)!; foldedLru.set(id, hit); sink++ } },
  ],
}

const nsPer = (run: () => void): number => {
  const passes = 4000
  const start = process.hrtime.bigint()
  for (let pass = 0; pass < passes; pass++) run()
  return Number(process.hrtime.bigint() - start) / passes / 50
}
for (const [name, [hand, lru]] of Object.entries(cases)) {
  nsPer(hand); nsPer(lru)
  const a: number[] = []
  const b: number[] = []
  for (let round = 0; round < 9; round++) { a.push(nsPer(hand)); b.push(nsPer(lru)) }
  a.sort((x, y) => x - y); b.sort((x, y) => x - y)
  process.stdout.write(`${name}: hand-made ${a[4]!.toFixed(1)} ns (${a[0]!.toFixed(1)}–${a[8]!.toFixed(1)}), lru-cache ${b[4]!.toFixed(1)} ns (${b[0]!.toFixed(1)}–${b[8]!.toFixed(1)})\n`)
}
if (sink === 0) process.stdout.write('\n')
