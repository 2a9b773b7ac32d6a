import type { QueryInput, QuerySource, ScanWindow } from '../engine/data.js'
import { loadLookups, namesOf, visitRows } from '../engine/passes.js'
import { QueryRefused } from '../errors.js'
import { compileProperties, noNeeds, readsEventProperties, type Needs, type RowTest } from '../properties/compile-filters.js'
import type { RowContext } from '../properties/row-context.js'
import type { FunnelsQuery } from '../schema/insight-queries.js'
import type { ResolvedRange } from '../time/date-range.js'
import { attemptsOf, bestAttempt, type Attempt, type FunnelEvent, type FunnelRules } from './attempts.js'
import { compileFunnelBreakdown, funnelValueKey, isEmptyValue, type FunnelBreakdown, type FunnelValue } from './funnel-breakdown.js'
import { matches } from '../properties/event-matcher.js'
import { compileExclusions, compileSteps, windowMs, type ExclusionPlan, type OrderType, type StepPlan } from './funnel-steps.js'

export interface FunnelPlan {
  readonly steps: readonly StepPlan[]
  readonly exclusions: readonly ExclusionPlan[]
  readonly rules: FunnelRules
  readonly breakdown: FunnelBreakdown | null
  /** The query's own filters and the test-account filters: they apply to every event a funnel reads. */
  readonly test: RowTest
  readonly actorOf: (row: RowContext) => string | null
  readonly needs: Needs
}

/** One funnel subject: an actor, or an actor and a breakdown value, with its attempts and the one that counts. */
export interface Subject {
  readonly actor: string
  readonly value: FunnelValue | null
  readonly attempts: readonly Attempt[]
  readonly best: Attempt
}

const actorOf = (query: FunnelsQuery, needs: Needs): ((row: RowContext) => string | null) => {
  const byHogQL = query.funnelsFilter?.funnelAggregateByHogQL
  if (byHogQL !== undefined && byHogQL !== null && byHogQL !== '' && byHogQL !== 'person_id') {
    throw new QueryRefused(`Aggregating a funnel by ${JSON.stringify(byHogQL)} is not supported: Hedgelog does not run HogQL.`, 'unsupported_query', 'funnelsFilter.funnelAggregateByHogQL')
  }
  const index = query.aggregation_group_type_index
  if (index === undefined || index === null) return (row) => row.event.personId
  needs.eventProperties = true
  return (row) => row.groupKey(index)
}

/** Compiles a funnel query: steps, exclusions, the breakdown, and who its actors are. */
export const planFunnel = (query: FunnelsQuery, input: QueryInput, withBreakdown = true): FunnelPlan => {
  const needs = noNeeds()
  const order: OrderType = query.funnelsFilter?.funnelOrderType ?? 'ordered'
  const steps = compileSteps(query, input.now, needs)
  const exclusions = compileExclusions(query, steps, order, input.now, needs)
  const own = compileProperties(query.properties, input.now, needs)
  const testAccounts = compileProperties(query.filterTestAccounts ? input.environment.testAccountFilters : null, input.now, needs)
  return {
    steps, exclusions, needs,
    rules: { order, stepCount: steps.length, windowMs: windowMs(query), strictlyAfterPrevious: steps.map((s) => s.strictlyAfterPrevious), exclusions },
    breakdown: withBreakdown ? compileFunnelBreakdown(query, steps.length, order, needs) : null,
    test: (row) => own(row) && testAccounts(row),
    actorOf: actorOf(query, needs),
  }
}

/** One row of an actor as a funnel reads it: its time, the steps and exclusions it matches, and its breakdown value. */
export interface ScannedEvent extends FunnelEvent {
  readonly value: FunnelValue | null
}

const maskOf = (matchers: readonly { event: string | null; test: RowTest }[], row: RowContext): number => {
  let mask = 0
  for (let i = 0; i < matchers.length; i++) if (matches(matchers[i]!, row)) mask |= 1 << i
  return mask
}

/** The event names a funnel reads: its step and exclusion events, or null (every event) for strict funnels. */
export const funnelEventNames = (plan: FunnelPlan): readonly string[] | null =>
  plan.rules.order === 'strict' ? null : namesOf([...plan.steps, ...plan.exclusions].map((m) => m.event))

/**
 * What a funnel keeps of one row, with the actor it belongs to; null for a row it does not read
 * (filtered out, matching no step or exclusion of a funnel that is not strict, or without actor).
 */
export const funnelRow = (plan: FunnelPlan, row: RowContext): { actor: string; event: ScannedEvent } | null => {
  if (!plan.test(row)) return null
  const steps = maskOf(plan.steps, row)
  const exclusions = maskOf(plan.exclusions, row)
  if (plan.rules.order !== 'strict' && steps === 0 && exclusions === 0) return null
  const actor = plan.actorOf(row)
  if (actor === null) return null
  return { actor, event: { t: row.event.timestamp, steps, exclusions, value: plan.breakdown ? plan.breakdown.valueOf(row) : null } }
}

/** The instants a funnel reads events between: its range's; no event outside them changes its answer. */
export const funnelWindow = (range: ResolvedRange): ScanWindow => ({ from: range.filterFrom, to: range.filterTo })

/** Reads every actor's funnel events in the range: step and exclusion events, and for strict funnels every other event too. */
const readActors = async (plan: FunnelPlan, range: ResolvedRange, input: QueryInput, source: QuerySource): Promise<Map<string, ScannedEvent[]>> => {
  const scan = { ...funnelWindow(range), events: funnelEventNames(plan), properties: readsEventProperties(plan.needs) }
  const lookups = await loadLookups(source, input.environment, plan.needs, scan)
  const actors = new Map<string, ScannedEvent[]>()
  await visitRows(source, scan, lookups, (row) => {
    const kept = funnelRow(plan, row)
    if (kept === null) return
    const list = actors.get(kept.actor) ?? []
    list.push(kept.event)
    actors.set(kept.actor, list)
  })
  return actors
}

const emptyLike = (sample: FunnelValue): FunnelValue => (typeof sample === 'string' ? '' : sample.map(() => ''))

const distinctValues = (events: readonly ScannedEvent[]): FunnelValue[] => {
  const out = new Map<string, FunnelValue>()
  for (const event of events) if (!out.has(funnelValueKey(event.value!))) out.set(funnelValueKey(event.value!), event.value!)
  return [...out.values()]
}

type Split = { value: FunnelValue | null; events: readonly ScannedEvent[]; canStart?: (event: FunnelEvent) => boolean }

/** One actor's events split into subjects by the breakdown attribution. */
const splitActor = (events: ScannedEvent[], breakdown: FunnelBreakdown | null, order: OrderType): Split[] => {
  if (breakdown === null) return [{ value: null, events }]
  const stepEvents = events.filter((e) => e.steps !== 0)
  const empty = emptyLike(events[0]!.value!)
  switch (breakdown.attribution) {
    case 'first_touch':
    case 'last_touch': {
      const named = stepEvents.filter((e) => !isEmptyValue(e.value!))
      const touch = breakdown.attribution === 'first_touch' ? named[0] : named[named.length - 1]
      return [{ value: touch?.value ?? empty, events }]
    }
    case 'all_events':
      return distinctValues(events).map((value) => ({ value, events: events.filter((e) => funnelValueKey(e.value!) === funnelValueKey(value)) }))
    case 'step': {
      const bit = 1 << breakdown.attributionStep
      const carriers = order === 'unordered' ? stepEvents : stepEvents.filter((e) => (e.steps & bit) !== 0)
      const values = carriers.length === 0 ? [empty] : distinctValues(carriers)
      return values.map((value) => {
        const key = funnelValueKey(value)
        if (order === 'unordered') return { value, events, canStart: (e) => funnelValueKey((e as ScannedEvent).value!) === key }
        // The attribution step counts only events carrying this value.
        return { value, events: events.map((e) => ((e.steps & bit) !== 0 && funnelValueKey(e.value!) !== key ? { ...e, steps: e.steps & ~bit } : e)) }
      })
    }
  }
}

/**
 * The subjects of one actor, from its events in the range in the order a scan meets them (by
 * timestamp, then uuid): one per breakdown value its attribution gives, each with at least one
 * attempt no exclusion discards.
 */
export const actorSubjects = (plan: FunnelPlan, actor: string, events: ScannedEvent[]): Subject[] => {
  const out: Subject[] = []
  for (const split of splitActor(events, plan.breakdown, plan.rules.order)) {
    const attempts = attemptsOf(split.events, plan.rules, split.canStart)
    const best = bestAttempt(attempts)
    if (best !== null) out.push({ actor, value: split.value, attempts, best })
  }
  return out
}

/** Every subject of a funnel over a range, actor by actor in the order the scan first meets them. */
export const funnelSubjects = async (plan: FunnelPlan, range: ResolvedRange, input: QueryInput, source: QuerySource): Promise<Subject[]> => {
  const actors = await readActors(plan, range, input, source)
  const out: Subject[] = []
  for (const [actor, events] of actors) out.push(...actorSubjects(plan, actor, events))
  return out
}
