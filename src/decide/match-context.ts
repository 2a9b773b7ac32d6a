import type { FilterDate } from './dates.js'
import type { FlagValue } from './results.js'

export type Properties = Readonly<Record<string, unknown>>

/** Per-request state a compiled matcher reads; one is reused for every flag of a request. */
export interface MatchContext {
  /** The properties the current flag matches against (person, or the flag's group). */
  props: Properties
  nowMs: number
  /** Ids (as strings) of the static cohorts the person belongs to. */
  staticCohorts: ReadonlySet<string>
  /** Values of the flags evaluated so far in this request, by key. */
  readonly results: Map<string, FlagValue>
  /** Set by a matcher that met a missing or cyclic dependency (a cohort). */
  failed: boolean
  /**
   * Date property strings read so far, parsed (null: no date): this request's, made by the first
   * date filter, or those of the person's remembered properties (see `EvaluationMemo`).
   */
  dates?: Map<string, FilterDate>
  /** The identifier whose bucketing hashes `hashes` keeps (see `EvaluationMemo`), or null. */
  hashedFor?: string | null
  /** Its rollout and variant hashes by flag position (two slots per flag, NaN until computed). */
  hashes?: Float64Array | null
}

export type Matcher = (context: MatchContext) => boolean

export const noMatch: Matcher = () => false
