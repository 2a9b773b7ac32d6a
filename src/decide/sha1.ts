/**
 * SHA-1 (FIPS 180-4) of a string's UTF-8 bytes, for the short inputs flag bucketing hashes
 * millions of times: no hex string, no Hash object, no allocation per call. Bit-identical to
 * `crypto.hash('sha1', text)` (strings with lone surrogates are encoded with U+FFFD, as Node
 * encodes them); the differential test holds it to that on random inputs.
 */

let bytes = new Uint8Array(256)
const schedule = new Int32Array(80)
/** The digest's five words, overwritten by the next call. */
const digest = new Uint32Array(5)
const encoder = new TextEncoder()

/** Writes `text` as UTF-8 into `bytes` at `at` (growing it as needed) and returns where it ends. */
const encode = (text: string, at: number): number => {
  const length = text.length
  if (bytes.length < at + length * 3 + 72) {
    const grown = new Uint8Array(at + length * 3 + 72)
    grown.set(bytes.subarray(0, at))
    bytes = grown
  }
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x80) return at + encoder.encodeInto(text, bytes.subarray(at)).written
    bytes[at + i] = code
  }
  return at + length
}

/** The five 32-bit words of the SHA-1 digest of `text`; the array is reused by the next call. */
export const sha1Words = (text: string): Uint32Array => digestOf(encode(text, 0))

/**
 * The digest of the four strings one after the other, as `sha1Words(a + b + c + d)` without
 * building that string. Strings are encoded one by one, so a surrogate pair split between two of
 * them is two lone surrogates.
 */
export const sha1WordsOf = (a: string, b: string, c: string, d: string): Uint32Array =>
  digestOf(encode(d, encode(c, encode(b, encode(a, 0)))))

/** The digest of the first `length` bytes of `bytes`. */
const digestOf = (length: number): Uint32Array => {
  const total = ((length + 8) >>> 6) * 64 + 64
  bytes[length] = 0x80
  bytes.fill(0, length + 1, total - 4)
  const bits = length * 8
  bytes[total - 4] = bits >>> 24
  bytes[total - 3] = (bits >>> 16) & 0xff
  bytes[total - 2] = (bits >>> 8) & 0xff
  bytes[total - 1] = bits & 0xff

  let h0 = 0x67452301, h1 = 0xefcdab89 | 0, h2 = 0x98badcfe | 0, h3 = 0x10325476, h4 = 0xc3d2e1f0 | 0
  const w = schedule
  for (let block = 0; block < total; block += 64) {
    for (let i = 0; i < 16; i++) {
      const at = block + i * 4
      w[i] = (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!
    }
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!
      w[i] = (x << 1) | (x >>> 31)
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, t = 0, i = 0
    for (; i < 20; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[i]!) | 0
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t
    }
    for (; i < 40; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[i]!) | 0
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t
    }
    for (; i < 60; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e - 0x70e44324 + w[i]!) | 0
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t
    }
    for (; i < 80; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e - 0x359d3e2a + w[i]!) | 0
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t
    }
    h0 = (h0 + a) | 0
    h1 = (h1 + b) | 0
    h2 = (h2 + c) | 0
    h3 = (h3 + d) | 0
    h4 = (h4 + e) | 0
  }
  digest[0] = h0
  digest[1] = h1
  digest[2] = h2
  digest[3] = h3
  digest[4] = h4
  return digest
}
