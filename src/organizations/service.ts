import type { FastifyRequest } from 'fastify'
import type { EventLog, JsonObject } from '../eventlog/port.js'
import type { Mailer } from '../mail/mailer.js'
import { principalOf } from '../auth/authenticate.js'
import { checkKeyReachesOrganization } from '../auth/key-reach.js'
import { organizationStream } from '../accounts/events.js'
import { NotFound, PermissionDenied } from '../kernel/errors.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import type { ReadModels } from '../readstore/read-models.js'
import { organizationDecider, type OrganizationCommand } from './decider.js'

export interface OrganizationDeps {
  readonly log: EventLog
  readonly models: ReadModels
  /** Sends invitation e-mails when SMTP is configured. */
  readonly mailer?: Mailer
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The organization a route's `{id}` names: `@current` is the caller's. An organization the
 * caller is not a member of is a 404 on the organization itself (`nested` false) and a 403 on
 * the routes under it, as PostHog's filtered queryset and membership permission answer.
 */
export const organizationOf = async (request: FastifyRequest, models: ReadModels, raw: string, nested: boolean): Promise<JsonObject & { id: string }> => {
  const principal = principalOf(request)
  const id = raw === '@current' ? principal.user.organization_id : raw
  if (!UUID.test(id)) throw new NotFound()
  checkKeyReachesOrganization(principal, id.toLowerCase())
  const organization = await models.get('organizations', id.toLowerCase()) as (JsonObject & { id: string }) | null
  if (!organization) throw new NotFound()
  if (organization.id !== principal.user.organization_id) {
    if (nested) throw new PermissionDenied('You do not have permission to perform this action.')
    throw new NotFound()
  }
  return organization
}

/** The organization's current members, in PostHog's order (first name, then the latest joined first). */
export const membersOf = async (models: ReadModels, organizationId: string): Promise<JsonObject[]> => {
  const users = await models.find('users', { where: { organization_id: organizationId } })
  return users.sort((a, b) => String(a['first_name']).localeCompare(String(b['first_name'])) || String(b['date_joined']).localeCompare(String(a['date_joined'])))
}

/** The level each member joined at, which the organization's decider overlays with its own record. */
export const joinedLevels = async (models: ReadModels, organizationId: string): Promise<Record<string, number>> =>
  Object.fromEntries((await membersOf(models, organizationId)).map((u) => [String(u['uuid']), Number(u['joined_level'] ?? u['membership_level'])]))

/** Runs a command on the organization's stream and waits until the read models show it. */
export const organizationCommand = async (deps: OrganizationDeps, organizationId: string, command: OrganizationCommand, context: CommandContext): Promise<void> => {
  const result = await handleCommand(deps.log, organizationDecider, organizationStream(organizationId), command, context)
  if (result.position) await deps.models.waitFor(result.position, ['organizations', 'users'])
}
