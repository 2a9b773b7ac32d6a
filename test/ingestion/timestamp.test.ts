import t from 'tap'
import { eventTimestamp, parseDate, requestSentAt } from '../../src/ingestion/timestamp.js'

const at = (iso: string): number => Date.parse(iso)
const NOW = at('2023-01-01T12:00:00Z')
const base = { now: NOW, sentAt: null, timestamp: undefined, offset: undefined, ignoreSentAt: false }
const iso = (ms: number): string => new Date(ms).toISOString()

t.test('without timestamp, offset or sent_at the event happened now', async (t) => {
  t.same(eventTimestamp(base), { ms: NOW, source: 'now' })
  t.same(eventTimestamp({ ...base, sentAt: at('2023-01-01T12:00:05Z') }), { ms: NOW, source: 'now' }, 'a sent_at alone changes nothing')
})

t.test('a timestamp without sent_at is taken as it is', async (t) => {
  const result = eventTimestamp({ ...base, timestamp: '2023-01-01T11:00:00Z' })
  t.equal(iso(result.ms), '2023-01-01T11:00:00.000Z')
  t.equal(result.source, 'timestamp')
})

t.test('a client clock ahead of the server is corrected by the skew sent_at shows', async (t) => {
  const result = eventTimestamp({ ...base, timestamp: '2023-01-01T11:00:00Z', sentAt: at('2023-01-01T12:00:10Z') })
  t.equal(iso(result.ms), '2023-01-01T10:59:50.000Z')
  t.equal(result.source, 'sent_at_skew')
})

t.test('a client clock behind the server is corrected the other way', async (t) => {
  const result = eventTimestamp({ ...base, timestamp: '2023-01-01T11:00:00Z', sentAt: at('2023-01-01T11:59:50Z') })
  t.equal(iso(result.ms), '2023-01-01T11:00:10.000Z')
})

t.test('aligned clocks leave the timestamp unchanged', async (t) => {
  const result = eventTimestamp({ ...base, timestamp: '2023-01-01T11:00:00Z', sentAt: NOW })
  t.equal(iso(result.ms), '2023-01-01T11:00:00.000Z')
})

t.test('$ignore_sent_at keeps the timestamp as sent', async (t) => {
  const result = eventTimestamp({ ...base, timestamp: '2023-01-01T11:00:00Z', sentAt: at('2023-01-01T12:00:10Z'), ignoreSentAt: true })
  t.equal(iso(result.ms), '2023-01-01T11:00:00.000Z')
  t.equal(result.source, 'timestamp')
})

t.test('a non-zero offset means now minus the offset, whatever else was sent', async (t) => {
  t.equal(iso(eventTimestamp({ ...base, offset: 5000 }).ms), '2023-01-01T11:59:55.000Z')
  const both = eventTimestamp({ ...base, offset: 5000, timestamp: '2023-01-01T11:00:00Z', sentAt: at('2023-01-01T12:00:10Z') })
  t.equal(iso(both.ms), '2023-01-01T11:59:55.000Z')
  t.equal(both.source, 'offset')
  t.equal(eventTimestamp({ ...base, offset: 0, timestamp: '2023-01-01T11:00:00Z' }).source, 'timestamp', 'a zero offset is ignored')
  t.equal(eventTimestamp({ ...base, offset: '5000' }).source, 'now', 'an offset that is not a number is ignored')
})

t.test('an unparseable timestamp falls back to now', async (t) => {
  t.same(eventTimestamp({ ...base, timestamp: 'not a date', sentAt: NOW }), { ms: NOW, source: 'now' })
})

t.test('a result more than 23 hours in the future is clamped to now', async (t) => {
  t.equal(eventTimestamp({ ...base, timestamp: '2023-01-02T11:30:00Z' }).ms, NOW, '23.5 hours ahead')
  t.equal(iso(eventTimestamp({ ...base, timestamp: '2023-01-02T10:30:00Z' }).ms), '2023-01-02T10:30:00.000Z', '22.5 hours ahead is kept')
  t.equal(eventTimestamp({ ...base, offset: -90_000_000 }).ms, NOW, 'a negative offset into the future too')
})

t.test('a result outside years 0 to 9999 becomes now', async (t) => {
  t.equal(eventTimestamp({ ...base, timestamp: '+010000-01-01T00:00:00Z' }).ms, NOW)
  t.equal(eventTimestamp({ ...base, timestamp: '2023-01-01T11:00:00Z', sentAt: at('9000-01-01T00:00:00Z') }).ms, NOW)
})

t.test('dates are read leniently', async (t) => {
  t.equal(iso(parseDate('2023-01-01T12:00:00')!), '2023-01-01T12:00:00.000Z', 'no zone means UTC')
  t.equal(iso(parseDate('2023-01-01 12:00:00')!), '2023-01-01T12:00:00.000Z', 'a space separator')
  t.equal(iso(parseDate('2023-01-01T15:00:00.000+03')!), '2023-01-01T12:00:00.000Z', 'an hours-only zone')
  t.equal(iso(parseDate('2023-01-01')!), '2023-01-01T00:00:00.000Z', 'a date alone')
  t.equal(iso(parseDate('1672574400')!), '2023-01-01T12:00:00.000Z', 'epoch seconds')
  t.equal(iso(parseDate('1672574400000')!), '2023-01-01T12:00:00.000Z', 'epoch milliseconds')
  t.equal(iso(parseDate('Sun, 01 Jan 2023 12:00:00 GMT')!), '2023-01-01T12:00:00.000Z', 'RFC 2822')
  t.equal(parseDate('yesterday'), null)
  t.equal(parseDate(''), null)
})

t.test('sent_at comes from the batch, else from the _ query parameter in milliseconds after 2020', async (t) => {
  t.equal(requestSentAt('2023-01-01T12:00:10Z', '1600000000000'), at('2023-01-01T12:00:10Z'))
  t.equal(requestSentAt(undefined, '1672574400000'), at('2023-01-01T12:00:00Z'))
  t.equal(requestSentAt(undefined, '1672574400'), null, 'seconds are ignored')
  t.equal(requestSentAt(undefined, '1500000000000'), null, 'before 2021 is ignored')
  t.equal(requestSentAt('garbage', undefined), null, 'an invalid sent_at is ignored')
  t.equal(requestSentAt('garbage', '1672574400000'), at('2023-01-01T12:00:00Z'))
})
