import t from 'tap'
import { civilFromDays, daysFromCivil, weekdayOf } from '../../src/subscriptions/calendar.js'
import { normalizeUtcDateTime, parseUtcDateTime } from '../../src/subscriptions/utc-datetime.js'

t.test('day numbers agree with the JavaScript calendar from 1600 to 2400', async (t) => {
  let mismatches = 0
  for (let days = daysFromCivil(1600, 1, 1); days <= daysFromCivil(2400, 12, 31); days += 1) {
    const date = new Date(days * 86_400_000)
    const civil = civilFromDays(days)
    if (civil.year !== date.getUTCFullYear() || civil.month !== date.getUTCMonth() + 1 || civil.day !== date.getUTCDate()) mismatches += 1
    if (daysFromCivil(civil.year, civil.month, civil.day) !== days) mismatches += 1
    if (weekdayOf(days) !== (date.getUTCDay() + 6) % 7) mismatches += 1
  }
  t.equal(mismatches, 0)
  t.same(civilFromDays(daysFromCivil(1, 1, 1)), { year: 1, month: 1, day: 1 })
  t.same(civilFromDays(daysFromCivil(9999, 12, 31)), { year: 9999, month: 12, day: 31 })
})

t.test('date-times come back in PostHog\'s UTC form', async (t) => {
  t.equal(normalizeUtcDateTime('2022-01-01T00:00:00'), '2022-01-01T00:00:00Z', 'no offset means UTC')
  t.equal(normalizeUtcDateTime('2022-01-01T00:00:00+00:00'), '2022-01-01T00:00:00Z')
  t.equal(normalizeUtcDateTime('2022-01-01T00:00:00.000Z'), '2022-01-01T00:00:00Z', 'zero microseconds are not shown')
  t.equal(normalizeUtcDateTime('2024-05-01T10:11:12.123456Z'), '2024-05-01T10:11:12.123456Z')
  t.equal(normalizeUtcDateTime('2024-05-01T10:11:12.5Z'), '2024-05-01T10:11:12.500000Z')
  t.equal(normalizeUtcDateTime('2024-05-01 10:11:12.1234567Z'), '2024-05-01T10:11:12.123456Z', 'digits past the sixth are cut')
  t.equal(normalizeUtcDateTime('2022-01-01'), '2022-01-01T00:00:00Z', 'a date alone is midnight')
  t.equal(normalizeUtcDateTime('2022-1-2T3:04'), '2022-01-02T03:04:00Z')
})

t.test('offsets are converted to UTC, across day and year boundaries', async (t) => {
  t.equal(normalizeUtcDateTime('2022-01-01T01:30:00+05:30'), '2021-12-31T20:00:00Z')
  t.equal(normalizeUtcDateTime('2021-12-31T22:00:00-0300'), '2022-01-01T01:00:00Z')
  t.equal(normalizeUtcDateTime('2022-03-01T00:00:00-01'), '2022-03-01T01:00:00Z')
  t.same(parseUtcDateTime('1969-12-31T23:59:59.25Z'), { seconds: -1, micros: 250_000 })
})

t.test('impossible or malformed date-times are refused', async (t) => {
  for (const value of ['', 'garbage', '2022-02-30T00:00:00Z', '2023-02-29', '2022-13-01', '2022-01-01T24:00:00Z',
    '2022-01-01T10:60:00Z', '0000-01-01T00:00:00Z', '2022-01-01T00:00:00+24:00', '9999-12-31T23:00:00-02:00', '2022-01-01T00:00:00 UTC']) {
    t.equal(parseUtcDateTime(value), null, JSON.stringify(value))
  }
  t.equal(normalizeUtcDateTime('2024-02-29T00:00:00Z'), '2024-02-29T00:00:00Z', 'a leap day is a date')
})
