import type { LRUCache } from 'lru-cache'
import { boundedCache } from '../kernel/bounded-cache.js'
import type { CompiledFlagSet } from './compile.js'

/** Identifiers remembered at most, per flag set. */
const IDENTIFIERS = 100_000
/** Hashes remembered at most, per flag set: 8 bytes each, so 16 MiB. */
const HASHES = 2_000_000

/**
 * The bucketing hashes of the identifiers decide was asked about lately, per compiled flag set:
 * SDKs ask for the same person's flags again and again (each page load, each server request), and
 * each of a person's rollout and variant hashes is a SHA-1 that never changes while the flags do
 * not. Two slots per flag, by its position (rollout, then variant); NaN until computed. A new
 * flag set (any flag changed) starts with none.
 */
export class HashMemo {
  private readonly bySet = new WeakMap<CompiledFlagSet, LRUCache<string, Float64Array>>()

  /** The slots of `identifier` under `definitions`, made empty when it was not remembered. */
  slotsOf(definitions: CompiledFlagSet, identifier: string): Float64Array {
    let identifiers = this.bySet.get(definitions)
    if (identifiers === undefined) {
      identifiers = boundedCache<string, Float64Array>({ max: IDENTIFIERS, maxSize: HASHES, sizeOf: (slots) => Math.max(1, slots.length) })
      this.bySet.set(definitions, identifiers)
    }
    let slots = identifiers.get(identifier)
    if (slots === undefined) {
      slots = new Float64Array(definitions.size * 2).fill(Number.NaN)
      identifiers.set(identifier, slots)
    }
    return slots
  }
}
