import t from 'tap'
import { nestsDeeperThan, textNestsDeeperThan } from '../../src/kernel/json-depth.js'
import { parseIngestJson } from '../../src/ingestion/decode.js'
import { CaptureError } from '../../src/http/capture-error.js'
import { seededRandom } from '../decide/support/flags.js'

/** Strings that hold what a depth scan could mistake for structure: quotes, backslashes, brackets. */
const TRICKY = ['', '"', '\\', '\\"', '"\\', '{', '[', ']}', '{"a":[', '\\\\"', 'é', '😀', '\n', '\u0000', 'plain']

const randomValue = (random: () => number, depth: number): unknown => {
  const roll = random()
  if (depth <= 0 || roll < 0.3) {
    const leaves = [null, true, 0, -1.5e300, TRICKY[Math.floor(random() * TRICKY.length)]!, TRICKY.slice(0, 1 + Math.floor(random() * TRICKY.length)).join('')]
    return leaves[Math.floor(random() * leaves.length)]
  }
  const size = Math.floor(random() * 4)
  if (roll < 0.65) return Array.from({ length: size }, () => randomValue(random, depth - 1))
  return Object.fromEntries(Array.from({ length: size }, (_, i) => [`${TRICKY[Math.floor(random() * TRICKY.length)]}${i}`, randomValue(random, depth - 1)]))
}

t.test('the text scan answers as the walk of the parsed value does, strings full of brackets, quotes and backslashes included', async (t) => {
  const random = seededRandom(64)
  let deeper = 0
  let disagreements = 0
  for (let i = 0; i < 3000; i++) {
    const value = randomValue(random, 1 + Math.floor(random() * 9))
    const text = JSON.stringify(value)
    for (let limit = 0; limit <= 9; limit++) {
      const walked = nestsDeeperThan(value, limit)
      if (walked) deeper++
      if (textNestsDeeperThan(text, limit) !== walked) disagreements++
    }
  }
  t.equal(disagreements, 0)
  t.ok(deeper > 3000 && deeper < 27000, `both answers occur (${deeper} of 30,000 too deep)`)
})

t.test('long ingestion texts are checked on their text: too deep is refused as short ones are, 64 levels are taken', async (t) => {
  const pad = 'x'.repeat(70 * 1024)
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}"${pad}"${'}'.repeat(depth)}`
  const deepest = parseIngestJson(nested(64)) as { a: unknown }
  t.ok(typeof deepest === 'object' && deepest !== null, 'a long text 64 levels deep is parsed')
  for (const text of [nested(65), `[${'"]\\\\",'.repeat(20_000)}${nested(65)}]`]) {
    t.ok(text.length > 64 * 1024)
    const refusal = (() => {
      try {
        parseIngestJson(text)
        return null
      } catch (error) {
        return error
      }
    })()
    t.ok(refusal instanceof CaptureError, 'refused as capture refuses')
    t.match(refusal, { status: 400, code: 'request_decoding_error', message: 'failed to decode request: JSON nested deeper than 64 levels' })
  }
})
