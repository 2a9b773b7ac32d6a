import type { FastifyInstance } from 'fastify'
import { createKey, createOrganizationWithOwner } from '../../src/cli/accounts.js'
import type { EventLog } from '../../src/eventlog/port.js'
import { acceptInvite } from '../../src/invites/accept.js'
import { ADMIN_LEVEL, MEMBER_LEVEL } from '../../src/organizations/levels.js'
import type { ReadModels } from '../../src/readstore/read-models.js'
import { client } from './client.js'
import { context } from './world.js'

export interface Member {
  readonly uuid: string
  readonly email: string
  readonly key: string
  readonly headers: { authorization: string }
}

type World = {
  log: EventLog
  models: ReadModels
  app: FastifyInstance
  installation: { organization_id: string }
  key: { value: string }
}

const bearer = (value: string) => ({ authorization: `Bearer ${value}` })

/**
 * Another user of an organization (the installation's unless given), joined as PostHog users
 * join: invited over HTTP at the level (by the installation's owner, or `invitedBy` for another
 * organization), then accepted as `hedgelog invites accept` does. The key is the one accepting
 * issues, with every scope, unless `scopes` asks for another, issued as `hedgelog keys create --user` does.
 */
export const addMember = async (
  w: World,
  options: { level?: number; organizationId?: string; invitedBy?: { authorization: string }; email?: string; scopes?: string[] | null } = {},
): Promise<Member> => {
  const email = options.email ?? `user-${Math.random().toString(36).slice(2, 8)}@example.com`
  const firstName = email.split('@')[0]!.slice(0, 30)
  const organizationId = options.organizationId ?? w.installation.organization_id
  const inviter = client(w.app, options.invitedBy ?? bearer(w.key.value))
  const invite = await inviter.post(`/api/organizations/${organizationId}/invites/`, {
    target_email: email, first_name: firstName, level: options.level ?? MEMBER_LEVEL, send_email: false,
  })
  if (invite.status !== 201) throw new Error(`invite to ${email} refused: ${invite.status} ${invite.raw}`)
  const joined = await acceptInvite(w.log, invite.body.id, firstName, context())
  const key = options.scopes === undefined
    ? joined.key
    : (await createKey(w.log, { user: joined.user_uuid, scopes: options.scopes, label: 'test' }, context())).key
  await w.models.waitFor((await w.log.headPosition())!, ['users', 'personal_api_keys', 'invites'])
  return { uuid: joined.user_uuid, email, key: key.value, headers: bearer(key.value) }
}

export const addAdmin = (w: World) => addMember(w, { level: ADMIN_LEVEL })

/** A whole second organization (owner, project, environment) as `hedgelog orgs create` makes it, with the owner's key. */
export const addOrganization = async (w: World, name = 'Second company') => {
  const { key, ...created } = await createOrganizationWithOwner(w.log, { name }, context())
  await w.models.waitFor((await w.log.headPosition())!, ['users', 'personal_api_keys', 'environments', 'organizations', 'projects'])
  return { ...created, key: key.value, headers: bearer(key.value) }
}

/** The owner of a brand-new organization that has nothing to do with the installation's. */
export const addStranger = async (w: World): Promise<Member & { organizationId: string; environmentId: number }> => {
  const elsewhere = await addOrganization(w, 'Elsewhere')
  return {
    uuid: elsewhere.user_uuid, email: elsewhere.email, key: elsewhere.key, headers: elsewhere.headers,
    organizationId: elsewhere.organization_id, environmentId: elsewhere.environment_id,
  }
}
