import t from 'tap'
import { subscriptionSummary } from '../../src/subscriptions/summary.js'

const ALL_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
const summary = (frequency: string, interval: number, byweekday: string[] | null = null, bysetpos: number | null = null) =>
  subscriptionSummary({ frequency, interval, byweekday, bysetpos })

t.test('the reference table of summaries', async (t) => {
  t.equal(summary('weekly', 1), 'sent every week')
  t.equal(summary('daily', 1), 'sent every day')
  t.equal(summary('weekly', 2), 'sent every 2 weeks')
  t.equal(summary('monthly', 1), 'sent every month')
  t.equal(summary('monthly', 2, ['wednesday'], 1), 'sent every 2 months on the first Wednesday')
  t.equal(summary('weekly', 1, ['wednesday'], -1), 'sent every week on the last Wednesday')
  t.equal(summary('weekly', 1, ['wednesday']), 'sent every week')
  t.equal(summary('monthly', 1, ALL_DAYS, 3), 'sent every month on the third day')
  t.equal(summary('monthly', 1, ['monday'], 10), 'sent on a schedule')
  t.equal(summary('yearly', 3), 'sent every 3 years')
})

t.test('every unit pluralises after an interval above one', async (t) => {
  t.equal(summary('daily', 2), 'sent every 2 days')
  t.equal(summary('monthly', 12), 'sent every 12 months')
  t.equal(summary('yearly', 1), 'sent every year')
})

t.test('each ordinal names its position, and several weekdays read as "day"', async (t) => {
  t.equal(summary('monthly', 1, ['friday'], 2), 'sent every month on the second Friday')
  t.equal(summary('monthly', 1, ['sunday'], 4), 'sent every month on the fourth Sunday')
  t.equal(summary('monthly', 1, ['monday', 'friday'], -1), 'sent every month on the last day')
  t.equal(summary('yearly', 2, ['saturday', 'saturday'], 1), 'sent every 2 years on the first day')
})

t.test('the "on the" part needs both a weekday list and a non-zero bysetpos', async (t) => {
  t.equal(summary('monthly', 1, [], 1), 'sent every month', 'an empty weekday list counts as none')
  t.equal(summary('monthly', 1, ['monday'], 0), 'sent every month', 'bysetpos 0 counts as none')
  t.equal(summary('monthly', 1, null, 10), 'sent every month', 'an unknown bysetpos without weekdays is never looked up')
})

t.test('values without wording fall back to "sent on a schedule"', async (t) => {
  t.equal(summary('hourly', 1), 'sent on a schedule')
  t.equal(summary('Weekly', 1), 'sent on a schedule', 'frequencies are case-sensitive')
  t.equal(summary('monthly', 1, ['monday'], -2), 'sent on a schedule')
  t.equal(summary('monthly', 1, ['monday'], 5), 'sent on a schedule')
})

t.test('the weekday is capitalised as Python does, the rest of the word lower-cased', async (t) => {
  t.equal(summary('monthly', 1, ['MONDAY'], 1), 'sent every month on the first Monday')
})

t.test('an interval of one or less is not written out', async (t) => {
  t.equal(summary('weekly', 0), 'sent every week')
})
