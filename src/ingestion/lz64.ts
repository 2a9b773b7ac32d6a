import LZString from 'lz-string'
import { decodingFailed, tooLarge } from './errors.js'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/='
const VALUES = new Int8Array(128).fill(-1)
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i

/**
 * The length in UTF-16 units that lz-string's `decompressFromBase64` would produce, found by
 * walking the code stream with entry lengths only (no strings). LZ-string output can grow
 * quadratically with its input, so this walk stops as soon as the total passes `limit`.
 * Returns null where lz-string would fail (truncated or corrupt input).
 */
export const lz64DecodedLength = (input: string, limit: number): number | null => {
  let index = 0
  let value = 0
  let position = 0
  const bit = (): number => {
    if (position === 0) {
      const code = input.charCodeAt(index++)
      value = code < 128 ? Math.max(VALUES[code]!, 0) : 0
      position = 32
    }
    const set = value & position
    position >>= 1
    return set === 0 ? 0 : 1
  }
  const read = (width: number): number => {
    let bits = 0
    for (let power = 0; power < width; power++) bits |= bit() << power
    return bits
  }
  const first = read(2)
  if (first === 2) return 0
  read(first === 0 ? 8 : 16)
  const lengths: number[] = [0, 0, 0, 1]
  let dictSize = 4
  let numBits = 3
  let enlargeIn = 4
  let previous = 1
  let total = 1
  for (;;) {
    // lz-string loads the next character as soon as one is used up; count it as it does.
    if (index + (position === 0 ? 1 : 0) > input.length) return null
    let code = read(numBits)
    if (code === 2) return total
    if (code === 0 || code === 1) {
      read(code === 0 ? 8 : 16)
      lengths[dictSize++] = 1
      code = dictSize - 1
      enlargeIn--
    }
    if (enlargeIn === 0) { enlargeIn = 2 ** numBits; numBits++ }
    let entry: number
    if (code >= 3 && code < dictSize) entry = lengths[code]!
    else if (code === dictSize) entry = previous + 1
    else return null
    total += entry
    if (total > limit) return Infinity
    lengths[dictSize++] = previous + 1
    enlargeIn--
    previous = entry
    if (enlargeIn === 0) { enlargeIn = 2 ** numBits; numBits++ }
  }
}

/**
 * lz-string's base64 format (posthog-js `compression=lz64`), refused past `limit` characters.
 * lz-string yields UTF-16 code units as they were compressed, lone surrogates included; they
 * become U+FFFD here, so that every decoded text is well-formed whatever its encoding was
 * (text decoded from UTF-8 always is).
 */
export const decompressLz64 = (input: string, limit: number): string => {
  const length = input === '' ? null : lz64DecodedLength(input, limit)
  if (length === Infinity) throw tooLarge(`decompressed payload exceeds ${limit} bytes`)
  const text = length === null ? null : lzStringOrNull(input)
  if (text === null || text === '') throw decodingFailed('invalid lz64 data')
  return text.isWellFormed() ? text : text.toWellFormed()
}

/** lz-string throws on some corrupt streams instead of answering null. */
const lzStringOrNull = (input: string): string | null => {
  try {
    return LZString.decompressFromBase64(input)
  } catch {
    return null
  }
}
