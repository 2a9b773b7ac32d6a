import crypto from 'node:crypto'

// 2^60 - 1 as a double rounds to 2^60, exactly as PostHog's own constant does.
const LONG_SCALE = 0xfffffffffffffff
const TWO_POW_28 = 2 ** 28

/**
 * PostHog's bucketing hash: SHA-1 of `prefix + identifier + salt`, the first 15 hex digits
 * (60 bits) as an unsigned integer, divided by 0xFFFFFFFFFFFFFFF. Result in [0, 1].
 * The 60-bit integer is rounded to a double once (high 32 bits × 2^28 is exact, so the sum
 * rounds correctly), as Rust's `u64 as f64` does.
 */
export const bucketHash = (prefix: string, identifier: string, salt: string): number => {
  const hex = sha1Hex(prefix + identifier + salt)
  const high = parseInt(hex.slice(0, 8), 16)
  const low = parseInt(hex.slice(8, 15), 16)
  return (high * TWO_POW_28 + low) / LONG_SCALE
}

// The one-shot `crypto.hash` (Node ≥ 20.12) is several times faster than a Hash object.
const sha1Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha1', text, 'hex')
    : (text) => crypto.createHash('sha1').update(text).digest('hex')

/** Hash for rollout (`salt` "") and variant selection (`salt` "variant"): `<key>.<identifier><salt>`. */
export const flagHash = (flagKey: string, identifier: string, salt: '' | 'variant'): number =>
  bucketHash(`${flagKey}.`, identifier, salt)

/** Holdouts hash `holdout-<identifier>` without the flag key, so a person is held out of every flag alike. */
export const holdoutHash = (identifier: string): number => bucketHash('holdout-', identifier, '')
