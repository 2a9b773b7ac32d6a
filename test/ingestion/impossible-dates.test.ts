import t from 'tap'
import { eventTimestamp, parseDate, requestSentAt } from '../../src/ingestion/timestamp.js'
import { world } from '../support/world.js'
import { capturedEvents } from './support/log.js'

const NOW = Date.parse('2024-06-01T12:00:00Z')
const base = { now: NOW, sentAt: null, timestamp: undefined, offset: undefined, ignoreSentAt: false }
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

const IMPOSSIBLE = [
  '2024-02-30', '2024-02-30T10:00:00Z', '2024-02-31T10:00:00.000Z', '2024-04-31T00:00:00.000Z', '2024-06-31T08:00:00+02:00',
  '2023-02-29T00:00:00Z', '1900-02-29', '2024-02-30 10:00:00', '2024-2-30', '2024/02/30', '02/30/2024',
  'Fri, 30 Feb 2024 12:00:00 GMT', 'Feb 30 2024', 'February 29, 2023', '31 April 2024',
  '2024-01-01T24:01:00Z', '2024-01-01T25:00:00Z', '2024-01-01T23:60:00Z', '2024-01-01T23:59:60Z', '2024-13-01T00:00:00Z', '2024-01-00T00:00:00Z',
]

t.test('a day its month does not have, or a time past 24:00, does not parse', async (t) => {
  for (const text of IMPOSSIBLE) t.equal(parseDate(text), null, text)
})

t.test('the real days beside them still parse', async (t) => {
  t.equal(iso(parseDate('2024-02-29T00:00:00.000Z')), '2024-02-29T00:00:00.000Z', 'Feb 29 of a leap year, as SDKs send it')
  t.equal(iso(parseDate('2024-02-29')), '2024-02-29T00:00:00.000Z')
  t.equal(iso(parseDate('2000-02-29T10:00:00Z')), '2000-02-29T10:00:00.000Z', 'a leap year divisible by 400')
  t.equal(iso(parseDate('Thu, 29 Feb 2024 12:00:00 GMT')), '2024-02-29T12:00:00.000Z')
  t.equal(iso(parseDate('2024-04-30T23:59:59.999Z')), '2024-04-30T23:59:59.999Z')
  t.equal(iso(parseDate('2024-01-31T10:00:00.000Z')), '2024-01-31T10:00:00.000Z')
  t.equal(iso(parseDate('12/31/2024')), '2024-12-31T00:00:00.000Z')
  t.equal(iso(parseDate('2024-01-01T24:00:00Z')), '2024-01-02T00:00:00.000Z', '24:00 is the end of the day')
  t.equal(iso(parseDate('1709164800')), '2024-02-29T00:00:00.000Z', 'epoch seconds name no calendar day')
})

t.test('an impossible timestamp is treated as any unparseable one: the event happened now, or at its offset', async (t) => {
  for (const timestamp of IMPOSSIBLE) t.same(eventTimestamp({ ...base, timestamp }), { ms: NOW, source: 'now' }, timestamp)
  t.same(eventTimestamp({ ...base, timestamp: '2024-02-30T10:00:00Z', offset: 1000 }), { ms: NOW - 1000, source: 'offset' })
  t.same(eventTimestamp({ ...base, timestamp: '2024-02-30T10:00:00Z', sentAt: NOW - 5000 }), { ms: NOW, source: 'now' })
})

t.test('an impossible sent_at is ignored: the timestamp is taken as sent, or _ is used', async (t) => {
  t.equal(requestSentAt('2024-02-30T10:00:00Z', undefined), null)
  t.equal(requestSentAt('2023-02-29T10:00:00.000Z', '1717243200000'), 1717243200000)
  t.equal(requestSentAt('2024-02-29T10:00:00.000Z', undefined), Date.parse('2024-02-29T10:00:00Z'))
})

t.test('captured events with impossible dates are stored at the receive time, never on the next month', async (t) => {
  const { app, log, installation } = await world(t)
  const response = await app.inject({
    method: 'POST', url: '/batch/',
    payload: {
      api_key: installation.project_api_key, sent_at: '2024-02-30T10:00:05Z',
      batch: [
        { event: 'feb 30', distinct_id: 'u', timestamp: '2024-02-30T10:00:00Z' },
        { event: 'apr 31', distinct_id: 'u', timestamp: '2024-04-31T09:00:00.000Z' },
        { event: 'feb 29 2023', distinct_id: 'u', timestamp: '2023-02-29T09:00:00.000Z' },
        { event: 'past 24:00', distinct_id: 'u', timestamp: '2024-01-01T24:01:00Z' },
        { event: 'leap day', distinct_id: 'u', timestamp: '2024-02-29T09:00:00.000Z' },
      ],
    },
  })
  t.equal(response.statusCode, 200)
  const stored = Object.fromEntries((await capturedEvents(log)).map((e) => [e.event, e]))
  for (const name of ['feb 30', 'apr 31', 'feb 29 2023', 'past 24:00']) t.equal(stored[name]!.timestamp, stored[name]!.now, `${name}: the receive time`)
  t.equal(stored['leap day']!.timestamp, '2024-02-29T09:00:00.000Z', 'the impossible sent_at was ignored, so the timestamp stands as sent')
  t.equal(stored['leap day']!.sent_at, null)
})
