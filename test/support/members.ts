import { issueApiKey } from '../../src/accounts/commands.js'
import { ADMIN_LEVEL, MEMBER_LEVEL, addUser, createOrganization } from '../../src/accounts/members.js'
import type { EventLog } from '../../src/eventlog/port.js'
import type { ReadModels } from '../../projections/read-models.js'
import { context } from './world.js'

export interface Member {
  readonly uuid: string
  readonly email: string
  readonly key: string
  readonly headers: { authorization: string }
}

/** Another user of an organization (the installation's unless given), with a key that has every scope. */
export const addMember = async (
  w: { log: EventLog; models: ReadModels; installation: { organization_id: string } },
  options: { level?: number; organizationId?: string; email?: string; scopes?: string[] | null } = {},
): Promise<Member> => {
  const email = options.email ?? `user-${Math.random().toString(36).slice(2, 8)}@example.com`
  const uuid = await addUser(w.log, {
    organizationId: options.organizationId ?? w.installation.organization_id, email, firstName: email.split('@')[0]!,
    membershipLevel: options.level ?? MEMBER_LEVEL,
  }, context())
  const key = await issueApiKey(w.log, { userUuid: uuid, scopes: options.scopes === undefined ? ['*'] : options.scopes, label: 'test' }, context())
  await w.models.waitFor((await w.log.headPosition())!, ['users', 'personal_api_keys'])
  return { uuid, email, key: key.value, headers: { authorization: `Bearer ${key.value}` } }
}

export const addAdmin = (w: Parameters<typeof addMember>[0]) => addMember(w, { level: ADMIN_LEVEL })

/** A user of a brand-new organization that has nothing to do with the installation's. */
export const addStranger = async (w: Parameters<typeof addMember>[0]): Promise<Member & { organizationId: string }> => {
  const organizationId = await createOrganization(w.log, 'Elsewhere', context())
  return { ...(await addMember(w, { organizationId, level: ADMIN_LEVEL })), organizationId }
}
