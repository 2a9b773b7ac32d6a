import { eventTypes } from '../kernel/event-types.js'
import type { JsonObject } from '../eventlog/port.js'

export interface FlagFields extends JsonObject {
  key: string
  name: string
  filters: JsonObject
  active: boolean
  ensure_experience_continuity: boolean
  tags: string[]
  /** A remote config flag: its `true` payload is served as configuration; absent in flags created before the field existed. */
  is_remote_configuration?: boolean
}

export type FeatureFlagCreated = {
  type: 'FeatureFlagCreated'
  data: FlagFields & { flagId: number; environmentId: number; createdBy: string; at: string }
}
export type FeatureFlagUpdated = { type: 'FeatureFlagUpdated'; data: { changes: Partial<FlagFields>; modifiedBy: string; at: string } }
export type FeatureFlagDeleted = { type: 'FeatureFlagDeleted'; data: { modifiedBy: string; at: string } }
export type FeatureFlagRestored = { type: 'FeatureFlagRestored'; data: { modifiedBy: string; at: string } }

export type FeatureFlagEvent = FeatureFlagCreated | FeatureFlagUpdated | FeatureFlagDeleted | FeatureFlagRestored

export const FEATURE_FLAG_EVENT_TYPES: readonly FeatureFlagEvent['type'][] = [
  'FeatureFlagCreated', 'FeatureFlagUpdated', 'FeatureFlagDeleted', 'FeatureFlagRestored',
]

export const flagStream = (id: number) => `flag-${id}`

/** A flag key is unique among an environment's live flags; this stream records who holds it. */
export const flagKeyStream = (environmentId: number, key: string) => `flagkey-${environmentId}-${key}`

/**
 * A claim made by a create carries the flag it creates (`creating`): the claim decides the create,
 * and the flag's own stream is completed from it, at once or, after a crash, by the scheduler.
 */
export type FlagKeyClaimed = {
  type: 'FlagKeyClaimed'
  /**
   * `by` names the claiming process (`host/pid/boot`; absent on older claims), so one that has
   * ended is known to be abandoned. `version` is the flag's version the claim was made for: the
   * update that uses the claim must land on that version (absent on creates, which make version
   * 1, and on older claims).
   */
  data: { flagId: number; at: string; by?: string; version?: number; creating?: FeatureFlagCreated['data'] }
}
/** `below`: only a claim made for an earlier version of the flag is given back (absent on older releases: any claim). */
export type FlagKeyReleased = { type: 'FlagKeyReleased'; data: { flagId: number; at: string; below?: number } }
export type FlagKeyEvent = FlagKeyClaimed | FlagKeyReleased

export const FLAG_KEY_EVENT_TYPES = eventTypes<FlagKeyEvent['type']>({ FlagKeyClaimed: true, FlagKeyReleased: true })
