import { BucketIndex } from '../engine/bucket-index.js'
import type { QueryInput, QuerySource } from '../engine/data.js'
import { QueryRefused } from '../errors.js'
import { FUNNEL_OTHER, funnelValueKey, type FunnelValue } from '../funnels/funnel-breakdown.js'
import { limitValues, tallySubjects } from '../funnels/funnel-results.js'
import type { Subject } from '../funnels/funnel-subjects.js'
import { stepsByPeriod } from '../funnels/funnel-views.js'
import { loadFunnel, type LoadedFunnel } from '../funnels/run-funnels.js'
import type { FunnelsQuery } from '../schema/insight-queries.js'
import type { FunnelsActorsQuery } from '../schema/other-queries.js'
import { addActor, bucketOfDay, newDrill, sameParts, selectorParts, type Drill } from './drill.js'

const partsOf = (value: FunnelValue): string[] => (typeof value === 'string' ? [value] : value)

/** Which subjects a `funnelStepBreakdown` means: one value, or (for Other) those beyond the breakdown limit. */
const valueFilter = (query: FunnelsActorsQuery, loaded: LoadedFunnel): ((subject: Subject) => boolean) => {
  const selector = query.funnelStepBreakdown
  const { breakdown } = loaded.plan
  if (selector === undefined || selector === null || breakdown === null) return () => true
  const wanted = selectorParts(selector)
  if (!wanted.every((part) => part === FUNNEL_OTHER)) return (subject) => sameParts(partsOf(subject.value!), wanted)
  const kept = new Set(limitValues(tallySubjects(loaded.subjects, loaded.plan.steps.length), breakdown.limit).map((tally) => funnelValueKey(tally.value!)))
  return (subject) => !kept.has(funnelValueKey(subject.value!))
}

/** `funnelStep` n (1-based): the subjects that reached step n; -n: those that reached step n-1 and went no further. */
const stepFilter = (funnelStep: number | null | undefined, steps: number): ((reached: number) => boolean) => {
  if (funnelStep === undefined || funnelStep === null) throw new QueryRefused('A funnel actors query names its step with funnelStep.', 'invalid_input', 'funnelStep')
  if (funnelStep === 0) throw new QueryRefused("Funnel steps are 1-indexed, so step 0 doesn't exist", 'invalid_input', 'funnelStep')
  if (funnelStep === -1) {
    throw new QueryRefused('The first valid drop-off argument for funnelStep is -2. -2 refers to persons who performed the first step but never made it to the second.', 'invalid_input', 'funnelStep')
  }
  if (Math.abs(funnelStep) > steps) throw new QueryRefused(`The funnel has ${steps} steps; funnelStep ${funnelStep} names none of them.`, 'invalid_input', 'funnelStep')
  return funnelStep > 0 ? (reached) => reached >= funnelStep : (reached) => reached === -funnelStep - 1
}

/**
 * The actors behind a funnel's step (converted, or dropped off with a negative `funnelStep`),
 * or, for conversion trends, behind one entrance period (`funnelTrendsEntrancePeriodStart`,
 * converted or `funnelTrendsDropOff`).
 */
export const funnelActors = async (query: FunnelsActorsQuery, funnel: FunnelsQuery, input: QueryInput, source: QuerySource): Promise<Drill> => {
  const loaded = await loadFunnel(funnel, input, source)
  const { plan, periods } = loaded
  const drill = newDrill(funnel.aggregation_group_type_index ?? null, {})
  const ofValue = valueFilter(query, loaded)
  const entrance = query.funnelTrendsEntrancePeriodStart
  if (funnel.funnelsFilter?.funnelVizType === 'trends' && entrance !== undefined && entrance !== null) {
    const { current, context } = periods
    const bucket = bucketOfDay(entrance, current, context.zone, context.weekStartDay, 'funnelTrendsEntrancePeriodStart')
    const buckets = new BucketIndex(current, context.zone, context.weekStartDay)
    for (const subject of loaded.subjects) {
      const reached = stepsByPeriod(subject, buckets).get(bucket)
      if (reached === undefined || !ofValue(subject) || reached <= loaded.from) continue
      if ((reached > loaded.to) !== (query.funnelTrendsDropOff === true)) addActor(drill, subject.actor, null)
    }
    return drill
  }
  const atStep = stepFilter(query.funnelStep, plan.steps.length)
  for (const subject of loaded.subjects) if (ofValue(subject) && atStep(subject.best.times.length)) addActor(drill, subject.actor, null)
  return drill
}
