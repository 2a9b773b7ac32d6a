import { changedFields } from '../kernel/canonical-json.js'
import { NotFound, ValidationFailed, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import type { FeatureFlagCreated, FeatureFlagEvent, FlagFields, FlagKeyEvent } from './events.js'
import { evolveFlag, type FeatureFlag } from './state.js'

export type FlagCommand =
  | { type: 'CreateFlag'; data: FeatureFlagCreated['data'] }
  | { type: 'UpdateFlag'; changes: Partial<FlagFields>; deleted: boolean | undefined; actor: string; at: string }

export const flagDecider: Decider<FeatureFlag | null, FlagCommand, FeatureFlagEvent> = {
  initialState: () => null,
  evolve: evolveFlag,
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateFlag':
        return state === null ? [{ type: 'FeatureFlagCreated', data: command.data }] : []
      case 'UpdateFlag': {
        // A deleted flag is only reachable by a PATCH that restores it.
        if (state === null || (state.deleted && command.deleted !== false)) throw new NotFound()
        const { actor: modifiedBy, at } = command
        const events: FeatureFlagEvent[] = []
        if (state.deleted) events.push({ type: 'FeatureFlagRestored', data: { modifiedBy, at } })
        const changes = changedFields(state, command.changes)
        if (Object.keys(changes).length > 0) events.push({ type: 'FeatureFlagUpdated', data: { changes, modifiedBy, at } })
        if (command.deleted === true && !state.deleted) events.push({ type: 'FeatureFlagDeleted', data: { modifiedBy, at } })
        return events
      }
      default:
        return assertNever(command)
    }
  },
}

/**
 * Who holds a flag key, since when, and which process claimed it. `staleHolder` names a holder
 * the caller found without a flag using the key; its claim may be taken over once it is older
 * than any command in flight could be, or at once when the process that made it has ended
 * (`holderEnded`), never while that command may still be running. A create's claim carries its
 * flag, which is written from it, so it is never stale before its flag exists.
 */
export type FlagKeyState = { holder: number | null; claimedAt: string | null; claimedBy: string | null }

/** A claim whose flag has not come to use it within this time belongs to a command that will not finish. */
export const ABANDONED_CLAIM_MS = 60_000
export type FlagKeyCommand =
  | {
    type: 'ClaimKey'; flagId: number; staleHolder: number | null; holderEnded: boolean; by: string; at: string
    creating?: FeatureFlagCreated['data']
  }
  | { type: 'ReleaseKey'; flagId: number; at: string }

export const flagKeyDecider: Decider<FlagKeyState, FlagKeyCommand, FlagKeyEvent> = {
  initialState: () => ({ holder: null, claimedAt: null, claimedBy: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'FlagKeyClaimed': return { holder: event.data.flagId, claimedAt: event.data.at, claimedBy: event.data.by ?? null }
      case 'FlagKeyReleased': return state.holder === event.data.flagId ? { holder: null, claimedAt: null, claimedBy: null } : state
      default: return assertNever(event)
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ClaimKey':
        if (state.holder === command.flagId) return []
        if (state.holder !== null) {
          const old = Date.parse(command.at) - Date.parse(state.claimedAt ?? command.at) > ABANDONED_CLAIM_MS
          const abandoned = state.holder === command.staleHolder && (old || command.holderEnded)
          if (!abandoned) throw new ValidationFailed('There is already a feature flag with this key.', 'key')
        }
        return [{
          type: 'FlagKeyClaimed',
          data: { flagId: command.flagId, at: command.at, by: command.by, ...(command.creating ? { creating: command.creating } : {}) },
        }]
      case 'ReleaseKey':
        return state.holder === command.flagId ? [{ type: 'FlagKeyReleased', data: { flagId: command.flagId, at: command.at } }] : []
      default:
        return assertNever(command)
    }
  },
}
