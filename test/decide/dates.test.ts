import t from 'tap'
import { parseDateString, parseRelativeDate, propertyDate, resolveRelativeDate } from '../../src/decide/dates.js'
import { matches, NOW } from './support/match.js'

const at = (iso: string) => Date.parse(iso)
const relative = (text: string, nowIso: string) => {
  const parsed = parseRelativeDate(text)
  return parsed === null ? null : new Date(resolveRelativeDate(parsed, at(nowIso))).toISOString()
}

t.test('relative dates: an optional minus, a number below 10000 and one unit letter', async (t) => {
  t.same(parseRelativeDate('-7d'), { amount: 7, unit: 'd' })
  t.same(parseRelativeDate('30d'), { amount: 30, unit: 'd' })
  t.same(parseRelativeDate('000h'), { amount: 0, unit: 'h' })
  for (const text of ['1', '1x', '1.2y', '1s', 'bazinga', '-7D', '10000d', ' -7d', '100000000000000000y']) {
    t.equal(parseRelativeDate(text), null, text)
  }
})

t.test('hours, days and weeks are fixed durations back from now', async (t) => {
  const now = '2020-01-01T12:01:20.134Z'
  t.equal(relative('1h', now), '2020-01-01T11:01:20.134Z')
  t.equal(relative('30h', now), '2019-12-31T06:01:20.134Z')
  t.equal(relative('-1d', now), '2019-12-31T12:01:20.134Z')
  t.equal(relative('30d', now), '2019-12-02T12:01:20.134Z')
  t.equal(relative('8w', now), '2019-11-06T12:01:20.134Z')
})

t.test('months and years step back on the calendar, clamping the day each step', async (t) => {
  t.equal(relative('1m', '2020-01-01T12:01:20.134Z'), '2019-12-01T12:01:20.134Z')
  t.equal(relative('4m', '2020-04-03T00:00:00.000Z'), '2019-12-03T00:00:00.000Z')
  t.equal(relative('1m', '2024-03-31T08:00:00.000Z'), '2024-02-29T08:00:00.000Z')
  t.equal(relative('2m', '2024-03-31T08:00:00.000Z'), '2024-01-29T08:00:00.000Z', 'the clamp carries over')
  t.equal(relative('1y', '2024-02-29T00:00:00.000Z'), '2023-02-28T00:00:00.000Z')
  t.equal(relative('12m', '2020-01-01T12:01:20.134Z'), relative('1y', '2020-01-01T12:01:20.134Z'))
})

t.test('absolute dates: RFC 3339 with its offset, bare dates and naive times as UTC', async (t) => {
  t.equal(parseDateString('2024-06-01', NOW), at('2024-06-01T00:00:00Z'))
  t.equal(parseDateString('2024-06-01T10:00:00+02:00', NOW), at('2024-06-01T08:00:00Z'))
  t.equal(parseDateString('2024-06-01 10:00:00.5Z', NOW), at('2024-06-01T10:00:00.500Z'))
  t.equal(parseDateString('2024-06-01T10:00', NOW), at('2024-06-01T10:00:00Z'))
  t.equal(parseDateString('2024-06-01 10:00:05', NOW), at('2024-06-01T10:00:05Z'))
  t.equal(parseDateString('June 1, 2024', NOW), at('2024-06-01T00:00:00Z'), 'other spellings are read leniently, as UTC')
  t.equal(parseDateString('2024-02-30', NOW), null, 'no rollover into the next month')
  t.equal(parseDateString('not a date', NOW), null)
})

t.test('property dates: numbers and numeric strings are Unix seconds', async (t) => {
  t.equal(propertyDate(1_700_000_000, NOW), 1_700_000_000_000)
  t.equal(propertyDate('1700000000.5', NOW), 1_700_000_000_500)
  t.equal(propertyDate('2024-01-01', NOW), at('2024-01-01T00:00:00Z'))
  t.equal(propertyDate(true, NOW), null)
  t.equal(propertyDate('inf', NOW), null)
})

t.test('date operators compare instants strictly', async (t) => {
  const before = { value: '2024-06-01', operator: 'is_date_before' }
  t.ok(matches(before, { key: '2024-05-31T23:59:59Z' }))
  t.notOk(matches(before, { key: '2024-06-01' }))
  t.ok(matches({ value: '2024-06-01', operator: 'is_date_exact' }, { key: '2024-06-01T00:00:00Z' }))
  t.ok(matches({ value: '2024-06-01', operator: 'is_date_after' }, { key: 1_717_200_001 }))
  t.notOk(matches({ value: '2024-06-01', operator: 'is_date_after' }, { key: 1_717_200_000 }))
  t.notOk(matches(before, {}), 'a missing property is no match')
  t.notOk(matches(before, { key: 'garbage' }))
  t.notOk(matches({ value: 'garbage', operator: 'is_date_before' }, { key: '2020-01-01' }))
  t.notOk(matches({ value: 1_717_200_000, operator: 'is_date_before' }, { key: '2020-01-01' }), 'the filter value must be a string')
})

t.test('relative filter dates use the injected now', async (t) => {
  const after = { value: '-7d', operator: 'is_date_after' }
  t.ok(matches(after, { key: '2024-06-10T00:00:00Z' }))
  t.notOk(matches(after, { key: '2024-06-07T00:00:00Z' }))
  t.ok(matches(after, { key: '2024-06-07T00:00:00Z' }, at('2024-06-10T00:00:00Z')), 'a different now moves the boundary')
  t.ok(matches({ value: '-1m', operator: 'is_date_before' }, { key: '-6w' }), 'a relative property value is read relative to now as well')
})
