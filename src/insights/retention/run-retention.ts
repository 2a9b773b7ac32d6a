import type { QueryInput, QuerySource } from '../engine/data.js'
import type { RetentionQuery } from '../schema/insight-queries.js'
import { isoDateTime } from '../time/labels.js'
import { OTHER_VALUE } from '../trends/breakdown-values.js'
import { retentionSubjects, type RetentionSubject } from './retention-cohorts.js'
import { planRetention, retentionRange, type RetentionPlan, type RetentionRange } from './retention-plan.js'

export interface RetentionValue {
  count: number
  label: string
}

/** One cohort row, as PostHog's newest retention runner writes it. */
export interface RetentionRow {
  values: RetentionValue[]
  label: string
  date: string
  breakdown_value?: string
}

export interface RetentionResponse {
  readonly results: RetentionRow[]
  readonly timezone: string
}

/** Distinct subjects per cohort and offset, by breakdown value (null without a breakdown). */
export type RetentionCounts = Map<string | null, number[][]>

const emptyCells = (intervals: number, lookahead: number): number[][] =>
  Array.from({ length: intervals }, () => new Array<number>(lookahead).fill(0))

/**
 * Adds one subject's appearances to the counts of its value (`sign` -1 takes them away again),
 * counts having one row per cohort interval of the range and `lookahead` values each.
 */
export const countSubject = (counts: RetentionCounts, subject: RetentionSubject, intervals: number, lookahead: number, sign: 1 | -1 = 1): void => {
  let cells = counts.get(subject.value)
  if (cells === undefined) counts.set(subject.value, (cells = emptyCells(intervals, lookahead)))
  for (const [cohort, ks] of subject.cohorts) for (const k of ks) cells[cohort]![k]! += sign
}

const rowsOf = (counts: number[][], plan: RetentionPlan, range: RetentionRange, value: string | null): RetentionRow[] => {
  const unit = plan.period[0]!.toUpperCase() + plan.period.slice(1)
  return counts.map((row, cohort) => {
    const shaped: RetentionRow = {
      values: row.map((count, k) => ({ count, label: `${unit} ${k}` })),
      label: `${unit} ${cohort}`,
      date: isoDateTime(range.starts[cohort]!, range.zone),
    }
    if (value !== null) shaped.breakdown_value = value
    return shaped
  })
}

/**
 * Breakdown values rank by their cohort sizes summed over the cohorts (then by value); those
 * beyond the limit become one Other value whose counts are the sums of theirs.
 */
const breakdownRows = (counts: RetentionCounts, plan: RetentionPlan, range: RetentionRange): RetentionRow[] => {
  const intervals = range.starts.length
  const ranked = [...counts.entries()]
    .map(([value, cells]) => ({ value: value!, counts: cells, size: cells.reduce((sum, row) => sum + row[0]!, 0) }))
    .sort((a, b) => b.size - a.size || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
  const kept = ranked.slice(0, plan.limit)
  const rest = ranked.slice(plan.limit)
  const rows = kept.flatMap((entry) => rowsOf(entry.counts, plan, range, entry.value))
  if (rest.length > 0) {
    const other = rest.reduce((sum, entry) => sum.map((row, c) => row.map((n, k) => n + entry.counts[c]![k]!)), emptyCells(intervals, plan.lookahead))
    rows.push(...rowsOf(other, plan, range, OTHER_VALUE))
  }
  return rows
}

/**
 * The response from what a run counted over a range: one row per cohort interval (per breakdown
 * value, every value of `counts` having at least one subject), `lookahead` values each.
 */
export const retentionResponse = (plan: RetentionPlan, range: RetentionRange, counts: RetentionCounts, timezone: string): RetentionResponse => {
  const results = plan.breakdown === null
    ? rowsOf(counts.get(null) ?? emptyCells(range.starts.length, plan.lookahead), plan, range, null)
    : breakdownRows(counts, plan, range)
  return { results, timezone }
}

/** Runs a RetentionQuery: one row per cohort interval (per breakdown value), `totalIntervals` values each. */
export const runRetention = async (query: RetentionQuery, input: QueryInput, source: QuerySource): Promise<RetentionResponse> => {
  const plan = planRetention(query, input)
  const range = await retentionRange(query, plan, input, source)
  const subjects = await retentionSubjects(plan, range, input, source)
  const counts: RetentionCounts = new Map()
  for (const subject of subjects) countSubject(counts, subject, range.starts.length, plan.lookahead)
  return retentionResponse(plan, range, counts, input.environment.timezone)
}
