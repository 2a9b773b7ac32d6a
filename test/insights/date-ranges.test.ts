import t from 'tap'
import { compareRange } from '../../src/insights/time/compare-range.js'
import { resolveRange, type RangeContext } from '../../src/insights/time/date-range.js'
import { bucketDay, bucketLabel, isoDateTime } from '../../src/insights/time/labels.js'
import { openZone } from '../../src/insights/time/zone.js'

const context = (now: string, timezone = 'UTC', weekStartDay: 0 | 1 = 0): RangeContext =>
  ({ zone: openZone(timezone), weekStartDay, now: Date.parse(now), earliestEvent: null })
const days = (range: ReturnType<typeof resolveRange>) => range.buckets.map((b) => bucketDay(b, range.interval))

t.test('week buckets start on the environment week start and labels are clipped to the range', async (t) => {
  const sunday = resolveRange({ date_from: '2024-01-03', date_to: '2024-01-20' }, 'week', context('2024-02-01T00:00:00Z'))
  t.same(days(sunday), ['2023-12-31', '2024-01-07', '2024-01-14'])
  t.same(sunday.buckets.map((b) => bucketLabel(b, sunday, 0)), ['3–6 Jan', '7–13 Jan', '14–20 Jan'])
  const monday = resolveRange({ date_from: '2024-01-03', date_to: '2024-01-20' }, 'week', context('2024-02-01T00:00:00Z', 'UTC', 1))
  t.same(days(monday), ['2024-01-01', '2024-01-08', '2024-01-15'])
  const across = resolveRange({ date_from: '2023-12-28', date_to: '2024-01-10' }, 'week', context('2024-02-01T00:00:00Z'))
  t.same(across.buckets.map((b) => bucketLabel(b, across, 0)), ['28–30 Dec', '31-Dec-2023 – 6-Jan-2024', '7–10 Jan'])
})

t.test('month and hour labels', async (t) => {
  const months = resolveRange({ date_from: '2024-01-15', date_to: '2024-03-02' }, 'month', context('2024-04-01T00:00:00Z'))
  t.same(months.buckets.map((b) => bucketLabel(b, months, 0)), ['Jan 2024', 'Feb 2024', 'Mar 2024'])
})

t.test('relative dates round as PostHog rounds them', async (t) => {
  const now = context('2024-03-15T10:30:00Z')
  const mStart = resolveRange({ date_from: 'mStart' }, 'day', now)
  t.equal(days(mStart)[0], '2024-03-01')
  t.equal(isoDateTime(mStart.to, now.zone), '2024-03-15T23:59:59.999999Z')
  t.equal(days(resolveRange({ date_from: '-1mStart', date_to: '-1mEnd' }, 'day', now)).at(-1), '2024-02-29')
  t.equal(days(resolveRange({ date_from: 'yStart' }, 'month', now))[0], '2024-01-01')
  t.equal(days(resolveRange({ date_from: '-7d' }, 'hour', now))[0], '2024-03-08 00:00:00')
  t.equal(days(resolveRange({ date_from: '-2h' }, 'hour', now))[0], '2024-03-15 08:00:00')
})

t.test('the previous period of -7d is moved a day later so weeks line up', async (t) => {
  const now = context('2024-01-10T15:00:00Z')
  const current = resolveRange({ date_from: '-7d' }, 'day', now)
  const previous = compareRange({ date_from: '-7d' }, current, null, now)
  t.same(days(current), ['2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07', '2024-01-08', '2024-01-09', '2024-01-10'])
  t.equal(days(previous)[0], '2023-12-27')
  t.equal(days(previous).length, 8)
  const shifted = compareRange({ date_from: '-7d' }, current, '-1w', now)
  t.equal(days(shifted)[0], '2023-12-27')
})

t.test('local midnights follow the zone, across a DST change', async (t) => {
  const ny = context('2024-04-01T00:00:00Z', 'America/New_York')
  const range = resolveRange({ date_from: '2024-03-09', date_to: '2024-03-11' }, 'day', ny)
  t.same(range.buckets.map((b) => new Date(ny.zone.toInstant(b)).toISOString()), ['2024-03-09T05:00:00.000Z', '2024-03-10T05:00:00.000Z', '2024-03-11T04:00:00.000Z'])
  const chatham = context('2024-04-01T00:00:00Z', 'Pacific/Chatham')
  t.equal(isoDateTime(resolveRange({ date_from: '2024-01-01', date_to: '2024-01-01' }, 'day', chatham).from, chatham.zone), '2024-01-01T00:00:00+13:45')
})
