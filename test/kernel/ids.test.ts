import t from 'tap'
import { newEventId, randomToken } from '../../src/kernel/ids.js'

t.test('event ids are version 7 UUIDs that sort by creation time', async (t) => {
  const ms = Date.parse('2026-01-01T00:00:00Z')
  const early = newEventId(ms)
  const late = newEventId(Date.parse('2026-01-01T00:00:00.001Z'))
  t.match(early, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.ok(early < late)
  t.equal(early.slice(0, 8) + early.slice(9, 13), ms.toString(16).padStart(12, '0'), 'the first 48 bits are the milliseconds')
  const many = new Set(Array.from({ length: 20_000 }, () => newEventId(0)))
  t.equal(many.size, 20_000, 'ids minted in the same millisecond differ')
})

t.test('tokens carry their prefix and base-62 digits', async (t) => {
  t.match(randomToken('phc_'), /^phc_[0-9A-Za-z]{43}$/)
  t.not(randomToken('phc_'), randomToken('phc_'))
})
