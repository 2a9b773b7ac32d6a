import { hashApiKey } from '../auth/api-key-hash.js'
import { WrongExpectedVersion } from '../eventlog/errors.js'
import type { EventLog, Position } from '../eventlog/port.js'
import { ValidationFailed } from '../kernel/errors.js'
import { eventMetadata, handleCommand, readAggregate, type CommandContext } from '../kernel/handle-command.js'
import { newEventId, newUlid, randomToken, randomUuid } from '../kernel/ids.js'
import { allocateId } from '../kernel/sequence.js'
import { OWNER_LEVEL } from '../organizations/levels.js'
import { ALL_SCOPES, isValidScope } from '../auth/scopes.js'
import { environmentDecider } from '../environments/decider.js'
import { apiKeyDecider } from './deciders.js'
import { setUpOrganization, type OrganizationSetUp } from './organization-setup.js'
import {
  INSTALLATION_STREAM, apiKeyStream, environmentStream, organizationStream, projectStream, userStream,
  type InstallationInitialized,
} from './events.js'

export interface IssuedKey {
  readonly id: string
  readonly value: string
  /** null for a legacy unscoped key. */
  readonly scopes: string[] | null
  /** Where the key's creation landed in the log, for read-your-writes. */
  readonly position: Position | null
}

export interface KeyRequest {
  readonly userUuid: string
  /** null issues a legacy unscoped key. */
  readonly scopes: readonly string[] | null
  readonly label: string
  /** Limits the key to these organizations (ids) or environments (ids); null or empty reaches all. */
  readonly scopedOrganizations?: readonly string[] | null
  readonly scopedTeams?: readonly number[] | null
}

export type Installation = OrganizationSetUp

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
  return setUpOrganization(log, {
    organizationId, organizationName: 'Default organization', userUuid, userId, email: 'admin@hedgelog.local', firstName: 'Admin',
    projectId, environmentId,
  }, context)
}

/**
 * Issues a personal API key; only its hash is stored, so the value is shown this once. Scopes
 * null issues a legacy unscoped key, which PostHog lets reach every action.
 */
export const issueApiKey = async (log: EventLog, request: KeyRequest, context: CommandContext): Promise<IssuedKey> => {
  const scopes = request.scopes === null ? null : validScopes(request.scopes)
  const id = newUlid()
  const value = randomToken('phx_', 35)
  const result = await handleCommand(log, apiKeyDecider, apiKeyStream(id), {
    type: 'CreateApiKey',
    data: {
      keyId: id, userUuid: request.userUuid, label: request.label, scopes,
      secureValue: hashApiKey(value), maskValue: `${value.slice(0, 4)}...${value.slice(-4)}`, at: context.now,
      scopedOrganizations: listOrNull(request.scopedOrganizations), scopedTeams: listOrNull(request.scopedTeams),
    },
  }, context)
  return { id, value, scopes, position: result.position }
}

/** An empty list limits nothing, as PostHog reads it; stored as null. */
const listOrNull = <T>(list: readonly T[] | null | undefined): T[] | null => (list && list.length > 0 ? [...list] : null)

const validScopes = (requested: readonly string[]): string[] => {
  const scopes = [...new Set(requested.map((s) => s.trim()).filter((s) => s !== ''))]
  if (scopes.length === 0) throw new ValidationFailed('This field is required.', 'scopes', 'required')
  const invalid = scopes.find((scope) => !isValidScope(scope))
  if (invalid !== undefined) throw new ValidationFailed(`Invalid scope: ${invalid}`, 'scopes')
  return scopes.includes(ALL_SCOPES) ? [ALL_SCOPES] : scopes
}

export const revokeApiKey = async (log: EventLog, keyId: string, context: CommandContext): Promise<Position | null> => {
  return (await handleCommand(log, apiKeyDecider, apiKeyStream(keyId), { type: 'RevokeApiKey', data: { keyId, at: context.now } }, context)).position
}
