import t from 'tap'
import { nextDeliveryDate, occurrences } from '../../src/subscriptions/recurrence.js'
import type { Schedule } from '../../src/subscriptions/schedule.js'

const schedule = (fields: Partial<Schedule>): Schedule => ({
  frequency: 'weekly', interval: 1, byweekday: null, bysetpos: null, count: null,
  start_date: '2022-01-01T00:00:00Z', until_date: null, ...fields,
})
const firstOf = (rule: Schedule, n: number): string[] => {
  const found: string[] = []
  for (const at of occurrences(rule)) {
    found.push(at)
    if (found.length === n) break
  }
  return found
}
const atNine = (...days: string[]) => days.map((day) => `${day}T09:00:00Z`)

t.test('every 2 weeks on Monday and Friday, started mid-week, crosses month ends in whole weeks', async (t) => {
  const rule = schedule({ interval: 2, byweekday: ['monday', 'friday'], start_date: '2022-01-26T09:00:00Z' })
  t.same(firstOf(rule, 6), atNine('2022-01-28', '2022-02-07', '2022-02-11', '2022-02-21', '2022-02-25', '2022-03-07'))
  t.equal(nextDeliveryDate(rule, '2022-01-29T00:00:00Z'), '2022-02-07T09:00:00Z', 'the week after the start week is skipped')
})

t.test('every 2 weeks without weekdays keeps the start\'s weekday across month ends', async (t) => {
  const rule = schedule({ interval: 2, start_date: '2022-01-30T00:00:00Z' })
  t.same(firstOf(rule, 4), ['2022-01-30T00:00:00Z', '2022-02-13T00:00:00Z', '2022-02-27T00:00:00Z', '2022-03-13T00:00:00Z'])
})

t.test('monthly on the last Saturday or Sunday', async (t) => {
  const rule = schedule({ frequency: 'monthly', byweekday: ['saturday', 'sunday'], bysetpos: -1, start_date: '2022-02-01T09:00:00Z' })
  t.same(firstOf(rule, 4), atNine('2022-02-27', '2022-03-27', '2022-04-30', '2022-05-29'))
})

t.test('monthly on the second-to-last Friday', async (t) => {
  const rule = schedule({ frequency: 'monthly', byweekday: ['friday'], bysetpos: -2, start_date: '2022-01-01T09:00:00Z' })
  t.same(firstOf(rule, 3), atNine('2022-01-21', '2022-02-18', '2022-03-18'))
})

t.test('a set position falling before the start is dropped, not moved to the next match', async (t) => {
  const rule = schedule({ frequency: 'monthly', byweekday: ['monday'], bysetpos: 1, start_date: '2022-01-15T09:00:00Z' })
  t.same(firstOf(rule, 3), atNine('2022-02-07', '2022-03-07', '2022-04-04'))
})

t.test('a weekly set position counts within the partial first week', async (t) => {
  const rule = schedule({ byweekday: ['monday', 'friday'], bysetpos: 1, start_date: '2022-01-05T09:00:00Z' })
  t.same(firstOf(rule, 4), atNine('2022-01-07', '2022-01-10', '2022-01-17', '2022-01-24'))
})

t.test('yearly with a weekday list spans the whole year: the last Friday of each year', async (t) => {
  const rule = schedule({ frequency: 'yearly', byweekday: ['friday'], bysetpos: -1, start_date: '2022-01-01T09:00:00Z' })
  t.same(firstOf(rule, 3), atNine('2022-12-30', '2023-12-29', '2024-12-27'))
})

t.test('daily with weekdays delivers only on those days', async (t) => {
  const rule = schedule({ frequency: 'daily', byweekday: ['saturday', 'sunday'], start_date: '2022-01-05T09:00:00Z' })
  t.same(firstOf(rule, 4), atNine('2022-01-08', '2022-01-09', '2022-01-15', '2022-01-16'))
})

t.test('monthly on the 31st skips shorter months; every 5 months crosses years', async (t) => {
  t.same(firstOf(schedule({ frequency: 'monthly', start_date: '2022-01-31T09:00:00Z' }), 7),
    atNine('2022-01-31', '2022-03-31', '2022-05-31', '2022-07-31', '2022-08-31', '2022-10-31', '2022-12-31'))
  t.same(firstOf(schedule({ frequency: 'monthly', interval: 5, start_date: '2022-11-15T09:00:00Z' }), 3),
    atNine('2022-11-15', '2023-04-15', '2023-09-15'))
})

t.test('yearly on February 29 falls only in leap years, and 2100 is not one', async (t) => {
  const leapDay = schedule({ frequency: 'yearly', start_date: '2024-02-29T12:00:00Z' })
  t.same(firstOf(leapDay, 3), ['2024-02-29T12:00:00Z', '2028-02-29T12:00:00Z', '2032-02-29T12:00:00Z'])
  t.equal(nextDeliveryDate(leapDay, '2024-03-01T00:00:00Z'), '2028-02-29T12:00:00Z')
  t.same(firstOf(schedule({ frequency: 'yearly', interval: 4, start_date: '2096-02-29T12:00:00Z' }), 2),
    ['2096-02-29T12:00:00Z', '2104-02-29T12:00:00Z'])
})

t.test('count limits the occurrences counted from the start', async (t) => {
  const three = schedule({ frequency: 'daily', count: 3, start_date: '2022-01-01T10:00:00Z' })
  t.equal(nextDeliveryDate(three, '2022-01-02T12:00:00Z'), '2022-01-03T10:00:00Z', 'the third is still to come')
  t.equal(nextDeliveryDate(three, '2022-01-03T10:00:00Z'), null, 'all three are past')
  t.same(firstOf(schedule({ frequency: 'monthly', byweekday: ['monday'], bysetpos: 1, count: 1, start_date: '2022-01-15T09:00:00Z' }), 5),
    atNine('2022-02-07'), 'a dropped position before the start does not use up the count')
  t.same(firstOf(schedule({ count: 0 }), 5), [], 'count 0 has no occurrence')
})

t.test('until ends the schedule and is inclusive', async (t) => {
  t.equal(nextDeliveryDate(schedule({ until_date: '2022-01-20T00:00:00Z' }), '2022-01-25T00:00:00Z'), null)
  const daily = (until: string) => schedule({ frequency: 'daily', start_date: '2022-01-01T10:00:00Z', until_date: until })
  t.equal(firstOf(daily('2022-01-05T10:00:00Z'), 9).at(-1), '2022-01-05T10:00:00Z')
  t.equal(firstOf(daily('2022-01-05T09:59:59Z'), 9).at(-1), '2022-01-04T10:00:00Z')
  t.equal(firstOf(daily('2022-01-05T10:00:00.5Z'), 9).at(-1), '2022-01-05T10:00:00Z')
  t.equal(firstOf(daily('2021-12-31T00:00:00Z'), 9).length, 0, 'an until before the start leaves nothing')
})

t.test('a start in the future is itself the next delivery when the rule includes it', async (t) => {
  t.equal(nextDeliveryDate(schedule({ start_date: '2030-03-04T08:30:00Z' }), '2022-01-01T00:00:00Z'), '2030-03-04T08:30:00Z')
  t.equal(nextDeliveryDate(schedule({ start_date: '2030-03-04T08:30:00Z', byweekday: ['friday'] }), '2022-01-01T00:00:00Z'),
    '2030-03-08T08:30:00Z', 'a Monday start with only Fridays listed waits for the Friday')
})

t.test('a start within the 15-minute lead is skipped; a delivery must be strictly after it', async (t) => {
  const now = '2022-01-01T00:00:00Z'
  t.equal(nextDeliveryDate(schedule({ start_date: '2022-01-01T00:10:00Z' }), now), '2022-01-08T00:10:00Z')
  t.equal(nextDeliveryDate(schedule({ start_date: '2022-01-01T00:15:00Z' }), now), '2022-01-08T00:15:00Z')
  t.equal(nextDeliveryDate(schedule({ start_date: '2022-01-01T00:15:01Z' }), now), '2022-01-01T00:15:01Z')
})

t.test('the previous delivery date only counts when it is later than now plus the lead', async (t) => {
  const daily = schedule({ frequency: 'daily', start_date: '2022-01-01T10:00:00Z' })
  t.equal(nextDeliveryDate(daily, '2022-01-05T12:00:00Z', '2022-01-02T10:00:00Z'), '2022-01-06T10:00:00Z')
  t.equal(nextDeliveryDate(daily, '2022-01-05T12:00:00Z', '2022-01-09T10:00:00Z'), '2022-01-10T10:00:00Z')
})

t.test('time of day and weekday come from the start in UTC; microseconds are dropped', async (t) => {
  t.same(firstOf(schedule({ start_date: '2022-01-03T01:00:00+02:00' }), 3),
    ['2022-01-02T23:00:00Z', '2022-01-09T23:00:00Z', '2022-01-16T23:00:00Z'], 'a Monday 01:00 at +02:00 is Sunday 23:00 UTC')
  const daily = schedule({ frequency: 'daily', start_date: '2022-01-01T10:00:00.750Z' })
  t.same(firstOf(daily, 2), ['2022-01-01T10:00:00Z', '2022-01-02T10:00:00Z'])
  t.equal(nextDeliveryDate(daily, '2022-01-01T09:45:00.200Z'), '2022-01-02T10:00:00Z', '10:00:00 is not after 10:00:00.2')
})

t.test('rules that can never fire end with null instead of running on', async (t) => {
  const began = Date.now()
  t.equal(nextDeliveryDate(schedule({ frequency: 'daily', byweekday: ['monday'], bysetpos: 2 }), '2022-01-01T00:00:00Z'), null)
  t.equal(nextDeliveryDate(schedule({ frequency: 'daily', interval: 7, byweekday: ['tuesday'], start_date: '2022-01-03T00:00:00Z' }), '2022-01-01T00:00:00Z'), null)
  t.equal(nextDeliveryDate(schedule({ frequency: 'monthly', byweekday: ['monday'], bysetpos: 6 }), '2022-01-01T00:00:00Z'), null)
  t.equal(nextDeliveryDate(schedule({ byweekday: ['monday', 'friday'], bysetpos: 3 }), '2022-01-01T00:00:00Z'), null)
  t.ok(Date.now() - began < 2000, 'answered promptly')
})

t.test('the calendar ends with year 9999', async (t) => {
  const yearly = schedule({ frequency: 'yearly', interval: 5000, start_date: '5000-06-01T00:00:00Z' })
  t.same(firstOf(yearly, 3), ['5000-06-01T00:00:00Z'])
})

t.test('schedules PostHog would refuse have no occurrences', async (t) => {
  const now = '2022-01-01T00:00:00Z'
  t.equal(nextDeliveryDate(schedule({ frequency: 'hourly' }), now), null)
  t.equal(nextDeliveryDate(schedule({ interval: 0 }), now), null)
  t.equal(nextDeliveryDate(schedule({ byweekday: ['funday'] }), now), null)
  t.equal(nextDeliveryDate(schedule({ byweekday: ['monday'], bysetpos: 0 }), now), null)
  t.equal(nextDeliveryDate(schedule({ start_date: 'soon' }), now), null)
  t.throws(() => nextDeliveryDate(schedule({}), 'now'), RangeError)
})
