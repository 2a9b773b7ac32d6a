import { changedFields } from '../kernel/canonical-json.js'
import { NotFound, ValidationFailed, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import type { FeatureFlagCreated, FeatureFlagEvent, FlagFields, FlagKeyClaimed, FlagKeyEvent } from './events.js'
import { evolveFlag, type FeatureFlag } from './state.js'

export type FlagCommand =
  | { type: 'CreateFlag'; data: FeatureFlagCreated['data'] }
  | {
    type: 'UpdateFlag'; changes: Partial<FlagFields>; deleted: boolean | undefined; actor: string; at: string
    /** The key this command has claimed for the flag, and the flag's version it was claimed for. */
    claimed: { key: string; version: number } | null
  }

/**
 * Thrown by `decide`, before anything is written, when an update would leave the flag live under
 * a key it was not live under (a restore, or a new key) without a claim on that key made for the
 * flag's current version. The caller claims `key` for `version` and runs the command again. Only
 * the stream can tell: the caller's view of the flag may be older (a delete landed in between,
 * and the delete gives the key back).
 */
export class KeyClaimNeeded extends Error {
  constructor(readonly key: string, readonly version: number) {
    super(`the flag key ${key} must be claimed for version ${version} first`)
  }
}

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
        const { actor: modifiedBy, at, claimed } = command
        const key = command.changes.key ?? state.key
        const livesUnderNewKey = command.deleted !== true && (state.deleted || key !== state.key)
        if (livesUnderNewKey && (claimed?.key !== key || claimed.version !== state.version)) throw new KeyClaimNeeded(key, state.version)
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
 * Who holds a flag key, since when, which process claimed it, and for which version of the flag.
 * `staleHolder` names a holder the caller found without a flag using the key; its claim may be
 * taken over once it is older than any command in flight could be, or at once when the process
 * that made it has ended (`holderEnded`), never while that command may still be running. A
 * create's claim carries its flag, which is written from it, so it is never stale before its flag
 * exists.
 *
 * The holder's claim is renewed for each later version of the flag that claims the key again,
 * and a release names the flag's version it was decided on: it gives back only claims made for
 * earlier versions. So a command that has claimed the key for the version it is about to change
 * keeps it against a concurrent command that saw the flag leave the key just before.
 */
export type FlagKeyState = { holder: number | null; claimedAt: string | null; claimedBy: string | null; version: number }

const claimVersion = (data: FlagKeyClaimed['data']): number => data.version ?? (data.creating ? 1 : 0)

/** A claim whose flag has not come to use it within this time belongs to a command that will not finish. */
export const ABANDONED_CLAIM_MS = 60_000
export type FlagKeyCommand =
  | {
    type: 'ClaimKey'; flagId: number; staleHolder: number | null; holderEnded: boolean; by: string; at: string
    /** The flag's version the claim is for; absent on a create. */
    version?: number
    creating?: FeatureFlagCreated['data']
  }
  | { type: 'ReleaseKey'; flagId: number; at: string; below: number }

export const flagKeyDecider: Decider<FlagKeyState, FlagKeyCommand, FlagKeyEvent> = {
  initialState: () => ({ holder: null, claimedAt: null, claimedBy: null, version: 0 }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'FlagKeyClaimed':
        return { holder: event.data.flagId, claimedAt: event.data.at, claimedBy: event.data.by ?? null, version: claimVersion(event.data) }
      case 'FlagKeyReleased':
        return state.holder === event.data.flagId && state.version < (event.data.below ?? Infinity) ? flagKeyDecider.initialState() : state
      default: return assertNever(event)
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ClaimKey':
        if (state.holder === command.flagId && (command.version ?? 1) <= state.version) return []
        if (state.holder !== null && state.holder !== command.flagId) {
          const old = Date.parse(command.at) - Date.parse(state.claimedAt ?? command.at) > ABANDONED_CLAIM_MS
          const abandoned = state.holder === command.staleHolder && (old || command.holderEnded)
          if (!abandoned) throw new ValidationFailed('There is already a feature flag with this key.', 'key')
        }
        return [{
          type: 'FlagKeyClaimed',
          data: {
            flagId: command.flagId, at: command.at, by: command.by,
            ...(command.version !== undefined ? { version: command.version } : {}), ...(command.creating ? { creating: command.creating } : {}),
          },
        }]
      case 'ReleaseKey': {
        const { flagId, at, below } = command
        return state.holder === flagId && state.version < below ? [{ type: 'FlagKeyReleased', data: { flagId, at, below } }] : []
      }
      default:
        return assertNever(command)
    }
  },
}
