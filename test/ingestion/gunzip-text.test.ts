import t from 'tap'
import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { sha256OfText } from '../../src/ingestion/decode-job.js'
import { gunzipText } from '../../src/ingestion/gunzip-text.js'

t.test('inflating a chunk at a time gives the text, BOM and characters split across chunks included', async (t) => {
  const text = `\uFEFF${'é😀'.repeat(100_000)}`
  t.equal(await gunzipText(gzipSync(Buffer.from(text, 'utf8')), 20 * 1024 * 1024), text)
})

t.test('refusals keep their order: too large before invalid UTF-8, invalid gzip, then invalid UTF-8', async (t) => {
  const invalidThenLarge = gzipSync(Buffer.concat([Buffer.from([0xc3, 0x28]), Buffer.alloc(300_000, 0x20)]))
  await t.rejects(gunzipText(invalidThenLarge, 100_000), { status: 413, code: 'payload_too_large' })
  await t.rejects(gunzipText(invalidThenLarge.subarray(0, invalidThenLarge.length - 8), 1_000_000), { status: 400, message: 'invalid gzip data' })
  await t.rejects(gunzipText(invalidThenLarge, 1_000_000), { status: 400, message: 'invalid body encoding' })
})

t.test('the text digest, fed in slices, equals the digest of the whole text', async (t) => {
  for (const text of ['', 'x'.repeat(262_143) + '😀'.repeat(3), '\uD800'.repeat(262_145) + 'é', '😀'.repeat(400_000)]) {
    t.equal(sha256OfText(text), createHash('sha256').update(text).digest('hex'))
  }
})
