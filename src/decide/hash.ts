import { sha1Words, sha1WordsOf } from './sha1.js'

// 2^60 - 1 as a double rounds to 2^60, exactly as PostHog's own constant does.
const LONG_SCALE = 0xfffffffffffffff
const TWO_POW_28 = 2 ** 28

/**
 * PostHog's bucketing hash: SHA-1 of `prefix + identifier + salt`, its first 15 hex digits
 * (60 bits: the first word and the top 28 bits of the second) as an unsigned integer, divided
 * by 0xFFFFFFFFFFFFFFF. Result in [0, 1].
 * The 60-bit integer is rounded to a double once (high 32 bits × 2^28 is exact, so the sum
 * rounds correctly), as Rust's `u64 as f64` does.
 */
export const bucketHash = (prefix: string, identifier: string, salt: string): number =>
  bucketOf(sha1Words(prefix + identifier + salt))

const bucketOf = (words: Uint32Array): number => (words[0]! * TWO_POW_28 + (words[1]! >>> 4)) / LONG_SCALE

/**
 * Hash for rollout (`salt` "") and variant selection (`salt` "variant"): `<key>.<identifier><salt>`.
 * The parts are hashed without joining them; each meets the next at an ASCII character or the
 * end, so the bytes hashed are those of the joined string.
 */
export const flagHash = (flagKey: string, identifier: string, salt: '' | 'variant'): number =>
  bucketOf(sha1WordsOf(flagKey, '.', identifier, salt))

/** Holdouts hash `holdout-<identifier>` without the flag key, so a person is held out of every flag alike. */
export const holdoutHash = (identifier: string): number => bucketOf(sha1WordsOf('holdout-', identifier, '', ''))
