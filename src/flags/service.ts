import type { EventLog, Position } from '../eventlog/port.js'
import { checkStorable } from '../kernel/change-parts.js'
import { completing, completionContext } from '../kernel/completing.js'
import { crashPoint } from '../kernel/crash-points.js'
import { processEnded, processName } from '../kernel/process-identity.js'
import { ConcurrencyConflict, DomainError, NotFound } from '../kernel/errors.js'
import { handleCommand, readAggregate, type CommandContext } from '../kernel/handle-command.js'
import { allocateId } from '../kernel/sequence.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import { KeyClaimNeeded, flagDecider, flagKeyDecider } from './decider.js'
import { flagKeyStream, flagStream, type FeatureFlagCreated, type FeatureFlagEvent, type FlagFields, type FlagKeyEvent } from './events.js'
import { evolveFlag, type FeatureFlag } from './state.js'

export interface FlagDeps {
  readonly log: EventLog
  readonly models: ReadModels
}

/** A flag of this environment, deleted or not; anything else is 404. */
export const findFlag = async (models: ReadModels, environment: Environment, id: string): Promise<FeatureFlag> => {
  const flag = /^\d+$/.test(id) ? await models.get('feature_flags', String(Number(id))) : null
  if (!flag || flag.environment_id !== environment.id) throw new NotFound()
  return flag
}

/**
 * A key's holder whose flag does not exist or no longer uses the key (a command cut short), and
 * whether the process that claimed it has ended. A create's claim is never stale before its flag
 * exists: the flag is written from the claim.
 */
const staleHolder = async (log: EventLog, environmentId: number, key: string): Promise<{ holder: number | null; ended: boolean }> => {
  const claim = await readAggregate<FlagKeyEvent>(log, flagKeyStream(environmentId, key))
  const state = claim.events.reduce(flagKeyDecider.evolve, flagKeyDecider.initialState())
  if (state.holder === null) return { holder: null, ended: false }
  const last = claim.events.at(-1)
  const creating = last?.type === 'FlagKeyClaimed' && last.data.creating !== undefined
  const flag = await currentFlag(log, state.holder)
  if (flag === null && creating) return { holder: null, ended: false }
  const stale = flag === null || flag.deleted || flag.key !== key
  return stale ? { holder: state.holder, ended: state.claimedBy !== null && processEnded(state.claimedBy) } : { holder: null, ended: false }
}

/** Claims a key for a flag: for the flag's version `version` when an update needs it, or with the flag a create writes. */
const claimKey = async (
  log: EventLog, environmentId: number, key: string, flagId: number, context: CommandContext,
  claim: { version: number } | { creating: FeatureFlagCreated['data'] },
) => {
  const stale = await staleHolder(log, environmentId, key)
  return handleCommand(log, flagKeyDecider, flagKeyStream(environmentId, key), {
    type: 'ClaimKey', flagId, staleHolder: stale.holder, holderEnded: stale.ended, by: processName(), at: context.now, ...claim,
  }, context)
}

/** Gives back a flag's claim on a key, if it was made for a version of the flag earlier than `below`. */
const releaseKey = (log: EventLog, environmentId: number, key: string, flagId: number, below: number, context: CommandContext) =>
  handleCommand(log, flagKeyDecider, flagKeyStream(environmentId, key), { type: 'ReleaseKey', flagId, at: context.now, below }, context)

/** The flag as its stream has it now. */
const currentFlag = async (log: EventLog, id: number): Promise<FeatureFlag | null> =>
  (await readAggregate<FeatureFlagEvent>(log, flagStream(id))).events.reduce(evolveFlag, null)

const settledFlag = async (deps: FlagDeps, id: number, position: Position | null): Promise<FeatureFlag> => {
  const flag = await deps.models.settled(position, 'feature_flags', String(id))
  if (!flag) throw new NotFound()
  return flag
}

/**
 * Writes the flag a key claim decided. Safe to run any number of times, at once or after a
 * restart: a flag is created once, and every run writes the same event id.
 */
export const completeFlagCreate = (log: EventLog, data: FeatureFlagCreated['data'], now = new Date().toISOString()) =>
  handleCommand(log, flagDecider, flagStream(data.flagId), { type: 'CreateFlag', data }, completionContext(data.createdBy, now, `flag-create-${data.flagId}`))

/**
 * The key's claim decides the create and carries the flag, so two flags of one environment never
 * share a live key, and a create is never half done: the flag's stream is written from the claim
 * right after, or by the scheduler's `finishCommands` job when the process died in between. A
 * flag too large to store is refused before anything is written.
 */
export const createFlag = async (deps: FlagDeps, environment: Environment, fields: FlagFields, context: CommandContext): Promise<FeatureFlag> => {
  const flagId = await allocateId(deps.log, 'feature_flag', context)
  const data = { ...fields, flagId, environmentId: environment.id, createdBy: context.actor, at: context.now }
  checkStorable('FlagKeyClaimed', { flagId, at: context.now, creating: data })
  await claimKey(deps.log, environment.id, fields.key, flagId, context, { creating: data })
  crashPoint('flag-create:key-claimed')
  const created = await completing(() => completeFlagCreate(deps.log, data, context.now))
  return settledFlag(deps, flagId, created.position)
}

/** Keys one update may claim, one per flag version it meets, before it gives way to the commands it races with. */
const CLAIM_ROUNDS = 20

/**
 * Changes a flag. An update that leaves the flag live under a key it was not live under (a
 * restore, a new key) claims the key first, for the flag's version the stream holds when the
 * update is decided (`KeyClaimNeeded`); the read model's view of the flag may be older. Keys the
 * flag is not live under afterwards are given back, as far as claims for earlier versions go: a
 * claim for the version the flag is at may belong to a concurrent update about to use it. So a
 * change too large to store is refused before any claim, and a change refused after its claim
 * was refused because the flag moved on, past the claim's version.
 */
export const updateFlag = async (
  deps: FlagDeps, flag: FeatureFlag, changes: Partial<FlagFields>, deleted: boolean | undefined, context: CommandContext,
): Promise<FeatureFlag> => {
  checkStorable('FeatureFlagUpdated', { changes, modifiedBy: context.actor, at: context.now })
  const keys = new Set([flag.key])
  let claimed: { key: string; version: number } | null = null
  let result
  try {
    for (let round = 1; ; round++) {
      try {
        const command = { type: 'UpdateFlag' as const, changes, deleted, actor: context.actor, at: context.now, claimed }
        result = await handleCommand(deps.log, flagDecider, flagStream(flag.id), command, context)
        break
      } catch (error) {
        if (!(error instanceof KeyClaimNeeded)) throw error
        if (round === CLAIM_ROUNDS) throw new ConcurrencyConflict(flagStream(flag.id))
        keys.add(error.key)
        await claimKey(deps.log, flag.environment_id, error.key, flag.id, context, { version: error.version })
        crashPoint('flag-update:key-claimed')
        claimed = { key: error.key, version: error.version }
      }
    }
  } catch (error) {
    // A change refused because the flag moved on gives back what it claimed for earlier versions.
    // A claim left by a change that gave way to its races, or by a process that died here, is
    // taken over once it is old enough (`ABANDONED_CLAIM_MS`).
    if (error instanceof DomainError) await releaseUnheld(deps.log, flag, keys, await currentFlag(deps.log, flag.id), context)
    throw error
  }
  // Keys are given back by what the command left, not by the read model: a concurrent command
  // may have changed the key or the deletion in between.
  if (result.state) await releaseUnheld(deps.log, flag, keys.add(result.state.key), result.state, context)
  return settledFlag(deps, flag.id, result.position)
}

/** Gives back the keys the flag is not live under at `state`, claimed for earlier versions than it. */
const releaseUnheld = async (log: EventLog, flag: FeatureFlag, keys: Set<string>, state: FeatureFlag | null, context: CommandContext) => {
  if (state === null) return
  const held = state.deleted ? null : state.key
  for (const key of keys) {
    if (key !== held) await releaseKey(log, flag.environment_id, key, flag.id, state.version, context)
  }
}
