import t from 'tap'
import { parseScheduleFields } from '../../src/subscriptions/schedule-fields.js'

const problemsOf = (input: Record<string, unknown>) => {
  const result = parseScheduleFields(input)
  return result.ok ? [] : result.problems
}
const firstProblem = (input: Record<string, unknown>) => problemsOf(input)[0]

t.test('a complete schedule is accepted and normalised', async (t) => {
  const result = parseScheduleFields({
    target_type: 'email', frequency: 'monthly', interval: '2', byweekday: ['wednesday', 'friday'], bysetpos: -1,
    count: null, start_date: '2022-01-01T00:00:00', until_date: '2022-06-01T12:00:00+02:00',
  })
  t.same(result, {
    ok: true,
    fields: {
      target_type: 'email', frequency: 'monthly', interval: 2, byweekday: ['wednesday', 'friday'], bysetpos: -1,
      count: null, start_date: '2022-01-01T00:00:00Z', until_date: '2022-06-01T10:00:00Z',
    },
  })
})

t.test('fields that are absent are neither checked nor returned', async (t) => {
  t.same(parseScheduleFields({ title: 'ignored', frequency: 'daily' }), { ok: true, fields: { frequency: 'daily' } })
})

t.test('unknown choices are invalid_choice on their field', async (t) => {
  t.same(firstProblem({ frequency: 'hourly' }), { attr: 'frequency', code: 'invalid_choice', detail: '"hourly" is not a valid choice.' })
  t.same(firstProblem({ target_type: 'sms' }), { attr: 'target_type', code: 'invalid_choice', detail: '"sms" is not a valid choice.' })
  t.same(firstProblem({ frequency: 7 }), { attr: 'frequency', code: 'invalid_choice', detail: '"7" is not a valid choice.' })
})

t.test('a bad weekday is reported at its index', async (t) => {
  t.same(problemsOf({ byweekday: ['monday', 'funday', 'Tuesday'] }), [
    { attr: 'byweekday__1', code: 'invalid_choice', detail: '"funday" is not a valid choice.' },
    { attr: 'byweekday__2', code: 'invalid_choice', detail: '"Tuesday" is not a valid choice.' },
  ])
  t.same(firstProblem({ byweekday: [null] }), { attr: 'byweekday__0', code: 'null', detail: 'This field may not be null.' })
})

t.test('byweekday must be a list or null', async (t) => {
  t.same(firstProblem({ byweekday: 'monday' }), { attr: 'byweekday', code: 'not_a_list', detail: 'Expected a list of items but got type "str".' })
  t.same(parseScheduleFields({ byweekday: null }), { ok: true, fields: { byweekday: null } })
  t.same(parseScheduleFields({ byweekday: [] }), { ok: true, fields: { byweekday: [] } })
})

t.test('interval must be a whole number of at least 1', async (t) => {
  for (const interval of [0, -1]) {
    t.same(firstProblem({ interval }), { attr: 'interval', code: 'min_value', detail: 'Ensure this value is greater than or equal to 1.' })
  }
  for (const interval of ['abc', 1.5, true]) {
    t.same(firstProblem({ interval }), { attr: 'interval', code: 'invalid_input', detail: 'A valid integer is required.' }, String(interval))
  }
  t.same(firstProblem({ interval: null }), { attr: 'interval', code: 'null', detail: 'This field may not be null.' })
  t.same(parseScheduleFields({ interval: '3.0' }), { ok: true, fields: { interval: 3 } })
})

t.test('integers stay within the 32-bit column', async (t) => {
  t.same(firstProblem({ count: 2_147_483_648 }), { attr: 'count', code: 'max_value', detail: 'Ensure this value is less than or equal to 2147483647.' })
  t.same(firstProblem({ bysetpos: -2_147_483_649 }), { attr: 'bysetpos', code: 'min_value', detail: 'Ensure this value is greater than or equal to -2147483648.' })
})

t.test('dates must be ISO 8601; start_date may not be null, until_date may', async (t) => {
  const wrongFormat = 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'
  t.same(firstProblem({ start_date: 'next monday' }), { attr: 'start_date', code: 'invalid_input', detail: wrongFormat })
  t.same(firstProblem({ until_date: 20220101 }), { attr: 'until_date', code: 'invalid_input', detail: wrongFormat })
  t.same(firstProblem({ start_date: null }), { attr: 'start_date', code: 'null', detail: 'This field may not be null.' })
  t.same(parseScheduleFields({ until_date: null }), { ok: true, fields: { until_date: null } })
})

t.test('problems come in PostHog\'s field order', async (t) => {
  const attrs = problemsOf({ until_date: 'x', start_date: 'x', count: 'x', bysetpos: 'x', byweekday: ['x'], interval: 0, frequency: 'x', target_type: 'x' })
    .map((problem) => problem.attr)
  t.same(attrs, ['target_type', 'frequency', 'interval', 'byweekday__0', 'bysetpos', 'count', 'start_date', 'until_date'])
})

t.test('with a weekday list, bysetpos must be a position dateutil accepts', async (t) => {
  const detail = 'bysetpos must be between 1 and 366, or between -366 and -1.'
  t.same(problemsOf({ byweekday: ['monday'], bysetpos: 0 }), [{ attr: 'bysetpos', code: 'invalid_input', detail }])
  t.same(problemsOf({ byweekday: ['monday'], bysetpos: -367 }), [{ attr: 'bysetpos', code: 'invalid_input', detail }])
  t.same(parseScheduleFields({ byweekday: ['monday'], bysetpos: 366 }), { ok: true, fields: { byweekday: ['monday'], bysetpos: 366 } })
  t.same(parseScheduleFields({ byweekday: null, bysetpos: 0 }), { ok: true, fields: { byweekday: null, bysetpos: 0 } }, 'ignored without weekdays')
  t.same(problemsOf({ byweekday: ['funday'], bysetpos: 0 }).map((p) => p.attr), ['byweekday__0'], 'field problems come first and alone')
})
