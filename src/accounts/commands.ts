import { createHash } from 'node:crypto'
import { WrongExpectedVersion } from '../eventlog/errors.js'
import type { EventLog } from '../eventlog/port.js'
import { ValidationFailed } from '../kernel/errors.js'
import { eventMetadata, handleCommand, readAggregate, type CommandContext } from '../kernel/handle-command.js'
import { newEventId, newUlid, randomToken, randomUuid } from '../kernel/ids.js'
import { allocateId } from '../kernel/sequence.js'
import { ALL_SCOPES, isValidScope } from '../auth/scopes.js'
import { environmentDecider } from '../environments/decider.js'
import { apiKeyDecider, organizationDecider, projectDecider, userDecider } from './deciders.js'
import {
  INSTALLATION_STREAM, apiKeyStream, environmentStream, organizationStream, projectStream, userStream,
  type InstallationInitialized,
} from './events.js'

export const hashApiKey = (value: string): string => `sha256$${createHash('sha256').update(value).digest('hex')}`

export const OWNER_LEVEL = 15

export interface IssuedKey {
  readonly id: string
  readonly value: string
  /** null for a legacy unscoped key. */
  readonly scopes: string[] | null
}

export interface Installation {
  readonly organization_id: string
  readonly user_uuid: string
  readonly project_id: number
  readonly environment_id: number
  readonly project_api_key: string
}

export const readInstallation = async (log: EventLog): Promise<InstallationInitialized['data'] | null> => {
  const { events } = await readAggregate<InstallationInitialized>(log, INSTALLATION_STREAM)
  return events[0]?.data ?? null
}

/**
 * Creates the organization, its first user, a project and its first environment, once. The
 * installation event is claimed first with `no_stream`, so two concurrent runs agree on one set
 * of ids; each entity is then created if missing, so a run cut short is completed by the next.
 */
export const initialize = async (log: EventLog, context: CommandContext): Promise<Installation> => {
  let installation = await readInstallation(log)
  if (!installation) {
    const environmentId = await allocateId(log, 'environment', context)
    const userId = await allocateId(log, 'user', context)
    const claim: InstallationInitialized['data'] = {
      organizationId: randomUuid(), userUuid: randomUuid(), userId, projectId: environmentId, environmentId, at: context.now,
    }
    try {
      await log.append(INSTALLATION_STREAM, [{ id: newEventId(), type: 'InstallationInitialized', data: claim, metadata: eventMetadata(context) }],
        { expectedRevision: 'no_stream' })
      installation = claim
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion)) throw error
      installation = (await readInstallation(log))!
    }
  }
  const { organizationId, userUuid, userId, projectId, environmentId } = installation
  const at = context.now
  await handleCommand(log, organizationDecider, organizationStream(organizationId), { data: { organizationId, name: 'Default organization', at } }, context)
  await handleCommand(log, userDecider, userStream(userUuid), {
    data: {
      userUuid, userId, organizationId, distinctId: randomToken('', 24), email: 'admin@hedgelog.local',
      firstName: 'Admin', lastName: '', membershipLevel: OWNER_LEVEL, at,
    },
  }, context)
  await handleCommand(log, projectDecider, projectStream(projectId), { data: { projectId, organizationId, name: 'Default project', createdBy: userUuid, at } }, context)
  const environment = await handleCommand(log, environmentDecider, environmentStream(environmentId), {
    type: 'CreateEnvironment',
    data: {
      environmentId, uuid: randomUuid(), projectId, organizationId, name: 'Default project',
      apiToken: randomToken('phc_'), timezone: 'UTC', createdBy: userUuid, at,
    },
  }, context)
  if (environment.state.status !== 'created') throw new Error('environment was not created')
  return {
    organization_id: organizationId,
    user_uuid: userUuid,
    project_id: projectId,
    environment_id: environmentId,
    project_api_key: environment.state.apiToken,
  }
}

/**
 * Issues a personal API key; only its hash is stored, so the value is shown this once. Scopes
 * null issues a legacy unscoped key, which PostHog lets reach every action.
 */
export const issueApiKey = async (
  log: EventLog, request: { userUuid: string; scopes: readonly string[] | null; label: string }, context: CommandContext,
): Promise<IssuedKey> => {
  const scopes = request.scopes === null ? null : validScopes(request.scopes)
  const id = newUlid()
  const value = randomToken('phx_', 35)
  await handleCommand(log, apiKeyDecider, apiKeyStream(id), {
    type: 'CreateApiKey',
    data: {
      keyId: id, userUuid: request.userUuid, label: request.label, scopes,
      secureValue: hashApiKey(value), maskValue: `${value.slice(0, 4)}...${value.slice(-4)}`, at: context.now,
    },
  }, context)
  return { id, value, scopes }
}

const validScopes = (requested: readonly string[]): string[] => {
  const scopes = [...new Set(requested.map((s) => s.trim()).filter((s) => s !== ''))]
  if (scopes.length === 0) throw new ValidationFailed('This field is required.', 'scopes', 'required')
  const invalid = scopes.find((scope) => !isValidScope(scope))
  if (invalid !== undefined) throw new ValidationFailed(`Invalid scope: ${invalid}`, 'scopes')
  return scopes.includes(ALL_SCOPES) ? [ALL_SCOPES] : scopes
}

export const revokeApiKey = async (log: EventLog, keyId: string, context: CommandContext): Promise<void> => {
  await handleCommand(log, apiKeyDecider, apiKeyStream(keyId), { type: 'RevokeApiKey', data: { keyId, at: context.now } }, context)
}
