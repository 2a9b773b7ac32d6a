import t from 'tap'
import type { CapturedEvent } from '../../src/ingestion/captured-event.js'
import { normaliseEvent } from '../../src/ingestion/normalise.js'
import { APPEND_BUDGET, RECORD_BUDGET, groupAppends, packEvents, surelyFitsOneAppend, weigh } from '../../src/ingestion/packing.js'

const context = { now: Date.now(), nowIso: new Date().toISOString(), sentAt: null, sentAtIso: null, ip: '2001:db8::1' }
const normalised = (text: string): CapturedEvent[] =>
  (JSON.parse(text) as Record<string, unknown>[]).map((raw) => normaliseEvent(raw, context)).flatMap((r) => (r.ok ? [r.event] : []))
const serialised = (events: CapturedEvent[]): number => weigh(events).reduce((sum, w) => sum + w + 1, 0)

t.test('the no-weighing shortcut never promises a fit that serialising would break', async (t) => {
  const awkward = [
    JSON.stringify([{ event: 'e', distinct_id: 'u', properties: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 1e20])) }]).replace(/100000000000000000000/g, '1e20'),
    JSON.stringify([{ event: 'e', properties: { distinct_id: { nested: '"'.repeat(300) } } }]),
    JSON.stringify(Array.from({ length: 300 }, () => ({ event: 'e', distinct_id: 'u' }))),
  ]
  for (const text of awkward) {
    const events = normalised(text)
    const real = serialised(events)
    const promised = surelyFitsOneAppend(Buffer.byteLength(text), events.length, Buffer.byteLength(context.ip), 0)
    const fits = (limit: number) => surelyFitsOneAppend(Buffer.byteLength(text), events.length, Buffer.byteLength(context.ip), APPEND_BUDGET - limit)
    t.ok(!promised || real <= APPEND_BUDGET)
    t.ok(!fits(real - 1), `a budget just under the real size (${real} bytes) is not promised`)
  }
})

t.test('packs keep order and stay within the record budget; appends within the append budget', async (t) => {
  const events = normalised(JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ event: 'e', distinct_id: `u${i}`, properties: { i, pad: 'x'.repeat(500) } }))))
  const packs = packEvents(events, weigh(events), 200)
  t.ok(packs.length > 4)
  t.ok(packs.every((p) => p.bytes <= RECORD_BUDGET))
  t.same(packs.flatMap((p) => p.events.map((e) => e.properties['i'])), events.map((_, i) => i))
  const appends = groupAppends(packs.map((p) => ({ weight: p.bytes + 200 })))
  t.ok(appends.every((group) => group.reduce((sum, r) => sum + r.weight, 0) <= APPEND_BUDGET))
  t.throws(() => packEvents(events.slice(0, 1), [APPEND_BUDGET], 200), { status: 413, code: 'payload_too_large' })
})
