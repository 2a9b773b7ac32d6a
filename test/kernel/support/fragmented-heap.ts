import { returnFreeMemory } from '../../../src/kernel/free-memory.js'

/**
 * Fills the allocator's heap with 64 KiB blocks (below the launcher's mmap threshold, so they come
 * from the heap), frees fifteen in sixteen so that the free memory lies between blocks in use,
 * then gives free memory back. Prints resident sizes before and after, as JSON.
 */
const gc = (globalThis as { gc?: () => void }).gc!
const rss = (): number => process.memoryUsage.rss()
const BLOCK = 64 * 1024
let blocks: Buffer[] = Array.from({ length: 3200 }, (_, i) => Buffer.allocUnsafeSlow(BLOCK).fill(i & 0xff))
const kept = blocks.filter((_, i) => i % 16 === 0)
blocks = []
gc()
await new Promise((resolve) => setTimeout(resolve, 300))
gc()
const before = rss()
const released = returnFreeMemory()
const after = rss()
process.stdout.write(JSON.stringify({ before, after, released, kept: kept.length }))
