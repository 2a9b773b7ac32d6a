import t from 'tap'
import { nextDeliveryDate } from '../../src/subscriptions/recurrence.js'
import type { Schedule } from '../../src/subscriptions/schedule.js'

// PostHog's model tests: a subscription starting 2022-01-01 00:00 UTC, the clock frozen at 2022-01-01.
const schedule = (fields: Partial<Schedule>): Schedule => ({
  frequency: 'weekly', interval: 2, byweekday: null, bysetpos: null, count: null,
  start_date: '2022-01-01T00:00:00Z', until_date: null, ...fields,
})
const FROZEN = '2022-01-01T00:00:00Z'
const ALL_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']

t.test('weekly every 2 weeks, advanced from 2022-01-02, is 2022-01-15', async (t) => {
  t.equal(nextDeliveryDate(schedule({}), FROZEN, '2022-01-02T00:00:00Z'), '2022-01-15T00:00:00Z')
})

t.test('every other month on the last Wednesday or Friday: Jan 28, then Mar 30, then May 27', async (t) => {
  const rule = schedule({ frequency: 'monthly', interval: 2, bysetpos: -1, byweekday: ['wednesday', 'friday'] })
  const first = nextDeliveryDate(rule, FROZEN)
  t.equal(first, '2022-01-28T00:00:00Z')
  const second = nextDeliveryDate(rule, FROZEN, first)
  t.equal(second, '2022-03-30T00:00:00Z')
  t.equal(nextDeliveryDate(rule, FROZEN, second), '2022-05-27T00:00:00Z')
})

t.test('monthly on the third day of all weekdays: Jan 3, then Feb 3', async (t) => {
  const rule = schedule({ frequency: 'monthly', interval: 1, bysetpos: 3, byweekday: ALL_DAYS })
  const first = nextDeliveryDate(rule, FROZEN)
  t.equal(first, '2022-01-03T00:00:00Z')
  t.equal(nextDeliveryDate(rule, FROZEN, first), '2022-02-03T00:00:00Z')
})

t.test('bysetpos without a weekday list is ignored: monthly from Jan 1 gives Feb 1', async (t) => {
  t.equal(nextDeliveryDate(schedule({ frequency: 'monthly', interval: 1, bysetpos: 3 }), FROZEN), '2022-02-01T00:00:00Z')
})

t.test('the 15-minute lead skips a delivery due within it: daily at 10:00, now 09:55, gives the next day', async (t) => {
  const daily = schedule({ frequency: 'daily', interval: 1, start_date: '2022-01-01T10:00:00Z' })
  t.equal(nextDeliveryDate(daily, '2022-01-11T09:55:00Z', '2022-01-11T10:00:00Z'), '2022-01-12T10:00:00Z')
})

t.test('a schedule days behind catches up to the first delivery after now, not after the stale date', async (t) => {
  const daily = schedule({ frequency: 'daily', interval: 1, start_date: '2022-01-01T10:00:00Z' })
  t.equal(nextDeliveryDate(daily, '2022-01-11T09:55:00Z', '2022-01-02T10:00:00Z'), '2022-01-12T10:00:00Z')
})

t.test('the create example: weekly from a naive 2022-01-01T00:00:00 is due a week later, in Z form', async (t) => {
  const weekly = schedule({ interval: 1, start_date: '2022-01-01T00:00:00' })
  t.equal(nextDeliveryDate(weekly, FROZEN), '2022-01-08T00:00:00Z')
})
