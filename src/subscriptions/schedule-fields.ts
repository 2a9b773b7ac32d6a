import {
  SUBSCRIPTION_FREQUENCIES, SUBSCRIPTION_TARGET_TYPES, SUBSCRIPTION_WEEKDAYS,
  type Schedule, type SubscriptionTargetType,
} from './schedule.js'
import { normalizeUtcDateTime } from './utc-datetime.js'
import { invalidChoice } from '../kernel/python-text.js'

/** One refused field, in PostHog's terms: `attr` as drf-exceptions-hog names it, DRF's code. */
export interface ScheduleProblem {
  readonly attr: string
  readonly code: string
  readonly detail: string
}

export type ScheduleFields = Partial<Schedule> & { readonly target_type?: SubscriptionTargetType }

export type ScheduleFieldsResult =
  | { readonly ok: true; readonly fields: ScheduleFields }
  | { readonly ok: false; readonly problems: readonly ScheduleProblem[] }

type Check = (attr: string, value: unknown) => { value: unknown } | ScheduleProblem[]

const INT32_MIN = -2_147_483_648
const INT32_MAX = 2_147_483_647
const DATETIME_FORMATS = 'YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]'

const pythonTypeName = (value: unknown): string =>
  typeof value === 'string' ? 'str' : typeof value === 'boolean' ? 'bool'
    : typeof value === 'number' ? (Number.isInteger(value) ? 'int' : 'float') : 'dict'

const problem = (attr: string, code: string, detail: string): ScheduleProblem[] => [{ attr, code, detail }]

const nullable = (check: Check, allowNull: boolean): Check => (attr, value) =>
  value !== null ? check(attr, value) : allowNull ? { value: null } : problem(attr, 'null', 'This field may not be null.')

const choice = (choices: readonly string[]): Check => (attr, value) =>
  typeof value === 'string' && choices.includes(value)
    ? { value }
    : problem(attr, 'invalid_choice', invalidChoice(value))

// DRF's IntegerField takes integers and integer strings ("7", "7.0"); the model column is int32.
const integer = (min: number): Check => (attr, value) => {
  const text = typeof value === 'number' || typeof value === 'string' ? String(value).trim() : ''
  const parsed = /^[+-]?\d+(\.0*)?$/.test(text) ? Number.parseInt(text, 10) : Number.NaN
  if (!Number.isSafeInteger(parsed)) return problem(attr, 'invalid_input', 'A valid integer is required.')
  if (parsed < min) return problem(attr, 'min_value', `Ensure this value is greater than or equal to ${min}.`)
  if (parsed > INT32_MAX) return problem(attr, 'max_value', `Ensure this value is less than or equal to ${INT32_MAX}.`)
  return { value: parsed }
}

const dateTime: Check = (attr, value) => {
  const normalized = typeof value === 'string' ? normalizeUtcDateTime(value) : null
  return normalized !== null
    ? { value: normalized }
    : problem(attr, 'invalid_input', `Datetime has wrong format. Use one of these formats instead: ${DATETIME_FORMATS}.`)
}

const weekdays: Check = (attr, value) => {
  if (!Array.isArray(value)) {
    return problem(attr, 'not_a_list', `Expected a list of items but got type "${pythonTypeName(value)}".`)
  }
  const item = nullable(choice(SUBSCRIPTION_WEEKDAYS), false)
  const problems = value.flatMap((day: unknown, index) => {
    const checked = item(`${attr}__${index}`, day)
    return Array.isArray(checked) ? checked : []
  })
  return problems.length > 0 ? problems : { value: [...value] }
}

// PostHog's serializer fields, in its field order: the first problem is the one it reports.
const CHECKS: ReadonlyArray<readonly [keyof ScheduleFields, Check]> = [
  ['target_type', nullable(choice(SUBSCRIPTION_TARGET_TYPES), false)],
  ['frequency', nullable(choice(SUBSCRIPTION_FREQUENCIES), false)],
  // Newer PostHog refuses an interval below 1; dateutil would never advance with 0.
  ['interval', nullable(integer(1), false)],
  ['byweekday', nullable(weekdays, true)],
  ['bysetpos', nullable(integer(INT32_MIN), true)],
  ['count', nullable(integer(INT32_MIN), true)],
  ['start_date', nullable(dateTime, false)],
  ['until_date', nullable(dateTime, true)],
]

/**
 * Checks the schedule fields present in a request body (and `target_type`) as PostHog's
 * serializer does, returning them normalised (integers parsed, dates in PostHog's UTC form) or
 * every problem in PostHog's order. For a PATCH, pass the stored fields overlaid with the body so
 * the rule across fields sees the result. That rule: with a weekday list, bysetpos must be
 * within ±1…366 (dateutil's limit, which PostHog does not check and fails on).
 */
export const parseScheduleFields = (input: Readonly<Record<string, unknown>>): ScheduleFieldsResult => {
  const fields: Record<string, unknown> = {}
  const problems: ScheduleProblem[] = []
  for (const [attr, check] of CHECKS) {
    if (input[attr] === undefined) continue
    const checked = check(attr, input[attr])
    if (Array.isArray(checked)) problems.push(...checked)
    else fields[attr] = checked.value
  }
  if (problems.length > 0) return { ok: false, problems }
  const setpos = fields.bysetpos
  const days = fields.byweekday
  if (typeof setpos === 'number' && Array.isArray(days) && days.length > 0 && (setpos === 0 || Math.abs(setpos) > 366)) {
    return { ok: false, problems: problem('bysetpos', 'invalid_input', 'bysetpos must be between 1 and 366, or between -366 and -1.') }
  }
  return { ok: true, fields: fields as ScheduleFields }
}
