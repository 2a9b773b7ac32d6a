import { QueryRefused } from '../errors.js'
import { compileProperties, type Needs } from '../properties/compile-filters.js'
import type { EventMatcher } from '../properties/event-matcher.js'
import type { AnyPropertyFilter } from '../schema/property-filters.js'
import type { FunnelExclusion, FunnelsQuery } from '../schema/insight-queries.js'
import type { EventsNode } from '../schema/series.js'
import { eventsNodeOf } from '../trends/series-plan.js'

/** Funnels keep matched steps as bits of one number. */
export const MAX_STEPS = 30

export interface StepPlan extends EventMatcher {
  readonly node: EventsNode
  /**
   * PostHog's rule for a step that repeats the one before it (the same event, with no filter the
   * previous step lacks): any event of the previous step would also count for this one, so this
   * step needs an event strictly later than the previous step's.
   */
  readonly strictlyAfterPrevious: boolean
}

export interface ExclusionPlan extends EventMatcher {
  readonly from: number
  readonly to: number
}

export type OrderType = 'ordered' | 'strict' | 'unordered'

interface Entity {
  readonly event?: string | null | undefined
  readonly properties?: readonly AnyPropertyFilter[] | null | undefined
  readonly fixedProperties?: readonly AnyPropertyFilter[] | null | undefined
}

const reprs = (filters: readonly AnyPropertyFilter[] | null | undefined): string[] =>
  (filters ?? []).map((f) => JSON.stringify([f.type, f.key ?? null, 'operator' in f ? f.operator ?? null : null, 'value' in f ? f.value ?? null : null]))

/** Whether every item of `small` is in `large`, counting repeats. */
const isSubMultiset = (small: string[], large: string[]): boolean => {
  const left = [...large]
  return small.every((item) => {
    const at = left.indexOf(item)
    if (at < 0) return false
    left.splice(at, 1)
    return true
  })
}

/**
 * PostHog's `is_equal or is_superset` of two entities: the same event, and `a` filters by
 * nothing `b` does not: every event of `b` is also one of `a`.
 */
export const coversEntity = (a: Entity, b: Entity): boolean =>
  (a.event ?? null) === (b.event ?? null) &&
  isSubMultiset(reprs(a.properties), reprs(b.properties)) &&
  isSubMultiset(reprs(a.fixedProperties), reprs(b.fixedProperties))

const stepNodes = (query: FunnelsQuery): EventsNode[] => {
  if (query.series.length > MAX_STEPS) throw new QueryRefused(`A funnel has at most ${MAX_STEPS} steps.`, 'invalid_input', 'series')
  return query.series.map((series, index) => {
    const node = eventsNodeOf(series)
    const math = node.math ?? 'total'
    if (math !== 'total') throw new QueryRefused(`The ${math} math is not supported on funnel steps yet.`, 'unsupported_query', `series.${index}.math`)
    if (node.optionalInFunnel === true) throw new QueryRefused('Optional funnel steps are not supported yet.', 'unsupported_query', `series.${index}.optionalInFunnel`)
    return node
  })
}

/** Compiles a funnel's steps, noting in `needs` what their filters read. */
export const compileSteps = (query: FunnelsQuery, now: number, needs: Needs): StepPlan[] => {
  const nodes = stepNodes(query)
  return nodes.map((node, index) => {
    const own = compileProperties(node.properties, now, needs)
    const fixed = compileProperties(node.fixedProperties, now, needs)
    return {
      node,
      event: node.event ?? null,
      test: (row) => own(row) && fixed(row),
      strictlyAfterPrevious: index > 0 && coversEntity(node, nodes[index - 1]!),
    }
  })
}

const refuse = (message: string): never => {
  throw new QueryRefused(message, 'invalid_input', 'funnelsFilter.exclusions')
}

const checkExclusion = (exclusion: FunnelExclusion, steps: readonly StepPlan[], order: OrderType): void => {
  const last = steps.length - 1
  if (exclusion.kind === 'ActionsNode') throw new QueryRefused('Action exclusions are not supported yet: Hedgelog has no actions.', 'unsupported_query', 'funnelsFilter.exclusions')
  if (exclusion.funnelFromStep >= exclusion.funnelToStep) refuse('Exclusion event range is invalid. End of range should be greater than start.')
  if (exclusion.funnelFromStep >= last) refuse('Exclusion event range is invalid. Start of range is greater than number of steps.')
  if (exclusion.funnelToStep > last) refuse('Exclusion event range is invalid. End of range is greater than number of steps.')
  for (const step of steps.slice(exclusion.funnelFromStep, exclusion.funnelToStep + 1)) {
    if (coversEntity(step.node, exclusion)) refuse("Exclusion steps cannot contain an event that's part of funnel steps.")
  }
  if (order === 'unordered' && (exclusion.funnelFromStep !== 0 || exclusion.funnelToStep !== last)) refuse('Partial Exclusions not allowed in unordered funnels')
}

/** Compiles and checks the exclusions, with PostHog's messages for bad ranges. */
export const compileExclusions = (query: FunnelsQuery, steps: readonly StepPlan[], order: OrderType, now: number, needs: Needs): ExclusionPlan[] =>
  (query.funnelsFilter?.exclusions ?? []).map((exclusion) => {
    checkExclusion(exclusion, steps, order)
    return { event: exclusion.event ?? null, test: compileProperties(exclusion.properties, now, needs), from: exclusion.funnelFromStep, to: exclusion.funnelToStep }
  })

/** `funnelFromStep`/`funnelToStep` checked as PostHog checks them; the defaults are the first and last steps. */
export const stepRange = (query: FunnelsQuery): { from: number; to: number } => {
  const last = query.series.length - 1
  const { funnelFromStep: from, funnelToStep: to } = query.funnelsFilter ?? {}
  if (from !== undefined && from !== null && !(from >= 0 && from <= last - 1)) {
    throw new QueryRefused(`funnelFromStep is out of bounds. It must be between 0 and ${last - 1}.`, 'invalid_input', 'funnelsFilter.funnelFromStep')
  }
  if (to !== undefined && to !== null) {
    if (!(to >= 1 && to <= last)) throw new QueryRefused(`funnelToStep is out of bounds. It must be between 1 and ${last}.`, 'invalid_input', 'funnelsFilter.funnelToStep')
    if (from !== undefined && from !== null && from >= to) {
      throw new QueryRefused('Funnel step range is invalid. funnelToStep should be greater than funnelFromStep.', 'invalid_input', 'funnelsFilter.funnelToStep')
    }
  }
  return { from: from ?? 0, to: to ?? last }
}

const UNIT_MS = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 } as const

/** The conversion window in milliseconds (14 days by default; a month counts 30 days). */
export const windowMs = (query: FunnelsQuery): number =>
  (query.funnelsFilter?.funnelWindowInterval ?? 14) * UNIT_MS[query.funnelsFilter?.funnelWindowIntervalUnit ?? 'day']
