import type { EventLog, Position } from '../eventlog/port.js'
import { checkStorable } from '../kernel/change-parts.js'
import { completing, completionContext } from '../kernel/completing.js'
import { crashPoint } from '../kernel/crash-points.js'
import { processEnded, processName } from '../kernel/process-identity.js'
import { DomainError, NotFound } from '../kernel/errors.js'
import { handleCommand, readAggregate, type CommandContext } from '../kernel/handle-command.js'
import { allocateId } from '../kernel/sequence.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import { flagDecider, flagKeyDecider } from './decider.js'
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
  const { events } = await readAggregate<FeatureFlagEvent>(log, flagStream(state.holder))
  const flag = events.reduce(evolveFlag, null)
  if (flag === null && creating) return { holder: null, ended: false }
  const stale = flag === null || flag.deleted || flag.key !== key
  return stale ? { holder: state.holder, ended: state.claimedBy !== null && processEnded(state.claimedBy) } : { holder: null, ended: false }
}

const claimKey = async (
  log: EventLog, environmentId: number, key: string, flagId: number, context: CommandContext, creating?: FeatureFlagCreated['data'],
) => {
  const stale = await staleHolder(log, environmentId, key)
  return handleCommand(log, flagKeyDecider, flagKeyStream(environmentId, key), {
    type: 'ClaimKey', flagId, staleHolder: stale.holder, holderEnded: stale.ended, by: processName(), at: context.now, ...(creating ? { creating } : {}),
  }, context)
}

const releaseKey = (log: EventLog, environmentId: number, key: string, flagId: number, context: CommandContext) =>
  handleCommand(log, flagKeyDecider, flagKeyStream(environmentId, key), { type: 'ReleaseKey', flagId, at: context.now }, context)

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
  await claimKey(deps.log, environment.id, fields.key, flagId, context, data)
  crashPoint('flag-create:key-claimed')
  const created = await completing(() => completeFlagCreate(deps.log, data, context.now))
  return settledFlag(deps, flagId, created.position)
}

export const updateFlag = async (
  deps: FlagDeps, flag: FeatureFlag, changes: Partial<FlagFields>, deleted: boolean | undefined, context: CommandContext,
): Promise<FeatureFlag> => {
  const key = changes.key ?? flag.key
  const willBeLive = deleted === false || (deleted === undefined && !flag.deleted)
  const claiming = willBeLive && (key !== flag.key || flag.deleted)
  if (claiming) await claimKey(deps.log, flag.environment_id, key, flag.id, context)
  crashPoint('flag-update:key-claimed')
  let result
  try {
    result = await handleCommand(deps.log, flagDecider, flagStream(flag.id), { type: 'UpdateFlag', changes, deleted, actor: context.actor, at: context.now }, context)
  } catch (error) {
    // A change refused after its claim (so not written) gives the key back; a claim left by a
    // process that died here is taken over once it is old enough (`ABANDONED_CLAIM_MS`).
    if (error instanceof DomainError && claiming && key !== flag.key) await releaseKey(deps.log, flag.environment_id, key, flag.id, context)
    throw error
  }
  // Keys are given back by what the command left, not by the read model: a concurrent command
  // may have changed the key or the deletion in between (a release of a key not held does nothing).
  const after = result.state
  const held = after !== null && !after.deleted ? after.key : null
  for (const released of new Set([flag.key, key, after?.key ?? flag.key])) {
    if (released !== held) await releaseKey(deps.log, flag.environment_id, released, flag.id, context)
  }
  return settledFlag(deps, flag.id, result.position)
}
