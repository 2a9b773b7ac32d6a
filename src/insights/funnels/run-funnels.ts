import type { QueryInput, QuerySource } from '../engine/data.js'
import { resolvePeriods, type Periods } from '../engine/periods.js'
import type { FunnelsQuery } from '../schema/insight-queries.js'
import { limitValues, shapeSteps, tallySubjects, type FunnelStep } from './funnel-results.js'
import { stepRange } from './funnel-steps.js'
import { funnelSubjects, planFunnel, type FunnelPlan, type Subject } from './funnel-subjects.js'
import { funnelTrends, timeToConvert, type FunnelTimeToConvert, type FunnelTrendsSeries } from './funnel-views.js'

export interface FunnelsResponse {
  readonly results: FunnelStep[] | FunnelStep[][] | FunnelTimeToConvert | FunnelTrendsSeries[]
  readonly timezone: string
  readonly resolved_date_range: { readonly date_from: string; readonly date_to: string }
}

/** A funnel query read and matched: what the result shapes and the actors of a step are built from. */
export interface LoadedFunnel {
  readonly plan: FunnelPlan
  readonly subjects: readonly Subject[]
  readonly periods: Periods
  readonly from: number
  readonly to: number
}

/**
 * Plans and matches a funnel. Every step's event must lie in the date range (resolved with the
 * query's interval); time-to-convert ignores the breakdown.
 */
export const loadFunnel = async (query: FunnelsQuery, input: QueryInput, source: QuerySource): Promise<LoadedFunnel> => {
  const { from, to } = stepRange(query)
  const plan = planFunnel(query, input, query.funnelsFilter?.funnelVizType !== 'time_to_convert')
  const periods = await resolvePeriods(query.dateRange, query.interval ?? 'day', null, input, source)
  const subjects = await funnelSubjects(plan, periods.current, input, source)
  return { plan, subjects, periods, from, to }
}

/** Runs a FunnelsQuery: steps (with breakdowns), time to convert, or conversion trends. */
export const runFunnels = async (query: FunnelsQuery, input: QueryInput, source: QuerySource): Promise<FunnelsResponse> => {
  const loaded = await loadFunnel(query, input, source)
  const { plan, subjects, periods } = loaded
  const base = { timezone: input.environment.timezone, resolved_date_range: periods.resolvedDateRange }
  switch (query.funnelsFilter?.funnelVizType ?? 'steps') {
    case 'time_to_convert':
      return { results: timeToConvert(subjects, loaded.from, loaded.to, query.funnelsFilter?.binCount ?? null), ...base }
    case 'trends': {
      const { context, current } = periods
      const limit = plan.breakdown === null ? null : plan.breakdown.limit
      return { results: funnelTrends(subjects, { range: current, zone: context.zone, weekStartDay: context.weekStartDay, from: loaded.from, to: loaded.to, limit }), ...base }
    }
    case 'steps': {
      const tallies = tallySubjects(subjects, plan.steps.length)
      if (plan.breakdown === null) return { results: shapeSteps(tallies[0]!, plan), ...base }
      if (subjects.length === 0) return { results: [], ...base }
      return { results: limitValues(tallies, plan.breakdown.limit).map((tally) => shapeSteps(tally, plan)), ...base }
    }
  }
}
