import type { QueryInput, QuerySource } from '../engine/data.js'
import { BucketIndex } from '../engine/bucket-index.js'
import { settlePeriods, type Periods } from '../engine/periods.js'
import type { FunnelsQuery } from '../schema/insight-queries.js'
import { limitValues, newTally, shapeSteps, tallySubjects, type FunnelStep, type Tally } from './funnel-results.js'
import { stepRange } from './funnel-steps.js'
import { funnelSubjects, planFunnel, type FunnelPlan, type Subject } from './funnel-subjects.js'
import {
  binConversionTimes, conversionSamples, shapeFunnelTrends, trendsGroups, type FunnelTimeToConvert, type FunnelTrendsSeries, type TrendsGroup,
} from './funnel-views.js'

export interface FunnelsResponse {
  readonly results: FunnelStep[] | FunnelStep[][] | FunnelTimeToConvert | FunnelTrendsSeries[]
  readonly timezone: string
  readonly resolved_date_range: { readonly date_from: string; readonly date_to: string }
}

export type FunnelViz = 'steps' | 'time_to_convert' | 'trends'

/** What a funnel run settles before it reads events: its plan, its period, and the steps its conversion goes between. */
export interface FunnelRun {
  readonly query: FunnelsQuery
  readonly viz: FunnelViz
  readonly plan: FunnelPlan
  readonly periods: Periods
  readonly from: number
  readonly to: number
}

/**
 * Settles a run of a FunnelsQuery at `input.now`. Every step's event must lie in the date range
 * (resolved with the query's interval); time-to-convert ignores the breakdown. `earliestEvent`
 * is the environment's first event (for `date_from: "all"`), null when the range does not need it.
 */
export const funnelRun = (query: FunnelsQuery, input: QueryInput, earliestEvent: number | null): FunnelRun => {
  const { from, to } = stepRange(query)
  const viz = query.funnelsFilter?.funnelVizType ?? 'steps'
  const plan = planFunnel(query, input, viz !== 'time_to_convert')
  const periods = settlePeriods(query.dateRange, query.interval ?? 'day', null, input, earliestEvent)
  return { query, viz, plan, periods, from, to }
}

/**
 * What a run's result is shaped from: for steps, one tally per breakdown value that has subjects
 * (none when no subject); for time to convert, the conversion samples; for trends, one group per
 * breakdown value that has subjects.
 */
export type FunnelCounts =
  | { readonly viz: 'steps'; readonly tallies: readonly Tally[] }
  | { readonly viz: 'time_to_convert'; readonly samples: readonly number[] }
  | { readonly viz: 'trends'; readonly groups: readonly TrendsGroup[] }

/** What the subjects of a run add up to, in the order of the subjects. */
export const countSubjects = (run: FunnelRun, subjects: readonly Subject[]): FunnelCounts => {
  switch (run.viz) {
    case 'steps': return { viz: 'steps', tallies: subjects.length === 0 ? [] : tallySubjects(subjects, run.plan.steps.length) }
    case 'time_to_convert': return { viz: 'time_to_convert', samples: conversionSamples(subjects, run.from, run.to) }
    case 'trends': {
      const { current, context } = run.periods
      return { viz: 'trends', groups: trendsGroups(subjects, current, new BucketIndex(current, context.zone, context.weekStartDay), run.from, run.to) }
    }
  }
}

/** The response of a run from what its subjects add up to: steps (with breakdowns), time to convert, or conversion trends. */
export const funnelsResponse = (run: FunnelRun, counts: FunnelCounts, timezone: string): FunnelsResponse => {
  const { plan, periods } = run
  const base = { timezone, resolved_date_range: periods.resolvedDateRange }
  switch (counts.viz) {
    case 'time_to_convert':
      return { results: binConversionTimes(counts.samples, run.query.funnelsFilter?.binCount ?? null), ...base }
    case 'trends': {
      const { context, current } = periods
      const limit = plan.breakdown === null ? null : plan.breakdown.limit
      return { results: shapeFunnelTrends(counts.groups, { range: current, zone: context.zone, weekStartDay: context.weekStartDay, from: run.from, to: run.to, limit }), ...base }
    }
    case 'steps': {
      if (plan.breakdown === null) return { results: shapeSteps(counts.tallies[0] ?? newTally(null, plan.steps.length), plan), ...base }
      if (counts.tallies.length === 0) return { results: [], ...base }
      return { results: limitValues([...counts.tallies], plan.breakdown.limit).map((tally) => shapeSteps(tally, plan)), ...base }
    }
  }
}

/** A funnel query read and matched: what the result shapes and the actors of a step are built from. */
export interface LoadedFunnel {
  readonly plan: FunnelPlan
  readonly subjects: readonly Subject[]
  readonly periods: Periods
  readonly from: number
  readonly to: number
}

const loadRun = async (query: FunnelsQuery, input: QueryInput, source: QuerySource): Promise<{ run: FunnelRun; subjects: Subject[] }> => {
  const earliestEvent = query.dateRange?.date_from === 'all' ? await source.earliestTimestamp() : null
  const run = funnelRun(query, input, earliestEvent)
  return { run, subjects: await funnelSubjects(run.plan, run.periods.current, input, source) }
}

/** Plans and matches a funnel (see `funnelRun`). */
export const loadFunnel = async (query: FunnelsQuery, input: QueryInput, source: QuerySource): Promise<LoadedFunnel> => {
  const { run, subjects } = await loadRun(query, input, source)
  return { plan: run.plan, subjects, periods: run.periods, from: run.from, to: run.to }
}

/** Runs a FunnelsQuery: steps (with breakdowns), time to convert, or conversion trends. */
export const runFunnels = async (query: FunnelsQuery, input: QueryInput, source: QuerySource): Promise<FunnelsResponse> => {
  const { run, subjects } = await loadRun(query, input, source)
  return funnelsResponse(run, countSubjects(run, subjects), input.environment.timezone)
}
