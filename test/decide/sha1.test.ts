import t from 'tap'
import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { sha1Words, sha1WordsOf } from '../../src/decide/sha1.js'

const hex = (words: Uint32Array): string => [...words].map((w) => w.toString(16).padStart(8, '0')).join('')
const nodeSha1 = (text: string): string => createHash('sha1').update(text).digest('hex')

t.test('the FIPS 180-4 examples', async (t) => {
  t.equal(hex(sha1Words('abc')), 'a9993e364706816aba3e25717850c26c9cd0d89d')
  t.equal(hex(sha1Words('')), 'da39a3ee5e6b4b0d3255bfef95601890afd80709')
  t.equal(hex(sha1Words('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')), '84983e441c3bd26ebaae4aa1f95129e5e54670f1')
})

t.test('every length around the block and padding boundaries agrees with Node', async (t) => {
  for (let length = 0; length <= 300; length++) {
    const text = 'x'.repeat(length)
    if (hex(sha1Words(text)) !== nodeSha1(text)) t.fail(`length ${length}`)
  }
  t.equal(hex(sha1Words('a'.repeat(10_000))), nodeSha1('a'.repeat(10_000)), 'a long input, after short ones')
  t.equal(hex(sha1Words('flag.ada')), nodeSha1('flag.ada'), 'a short one again, after the buffer grew')
})

t.test('random strings (non-ASCII, astral, lone surrogates, NUL) agree with Node', async (t) => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => hex(sha1Words(text)) === nodeSha1(text)), { numRuns: 5000 })
  fc.assert(fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 120 }), (text) => hex(sha1Words(text)) === nodeSha1(text)), { numRuns: 5000 })
  for (const text of ['\ud800', 'a\udc00b', '😀', 'é', '\u0000', 'ünïcödé-✓-𝔘']) t.equal(hex(sha1Words(text)), nodeSha1(text), JSON.stringify(text))
})

t.test('a message in parts hashes as the joined string when the parts meet at ASCII characters', async (t) => {
  const part = fc.string({ unit: 'binary', maxLength: 90 })
  fc.assert(fc.property(part, part, fc.constantFrom('', 'variant', '.', 'é'), (a, b, salt) =>
    hex(sha1WordsOf(`${a}.`, '', `-${b}`, salt)) === nodeSha1(`${a}.-${b}${salt}`)), { numRuns: 3000 })
  for (let length = 0; length <= 140; length++) {
    const text = 'y'.repeat(length)
    if (hex(sha1WordsOf('flag.', text, 'variant', '')) !== nodeSha1(`flag.${text}variant`)) t.fail(`length ${length}`)
  }
  t.equal(hex(sha1WordsOf('a'.repeat(5000), '.', 'é'.repeat(3000), 'variant')), nodeSha1(`${'a'.repeat(5000)}.${'é'.repeat(3000)}variant`), 'parts that grow the buffer')
  t.equal(hex(sha1WordsOf('flag-1', '.', 'ada', '')), nodeSha1('flag-1.ada'), 'a short one again')
})
