import { issueApiKey } from '../../src/accounts/commands.js'
import { ADMIN_LEVEL, MEMBER_LEVEL, addUser, createOrganization } from '../../src/accounts/members.js'
import { setUpOrganization } from '../../src/accounts/organization-setup.js'
import type { EventLog } from '../../src/eventlog/port.js'
import { randomUuid } from '../../src/kernel/ids.js'
import { allocateId } from '../../src/kernel/sequence.js'
import type { ReadModels } from '../../src/readstore/read-models.js'
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

/** A whole second organization (owner, project, environment) as `hedgelog orgs create` makes it, with the owner's key. */
export const addOrganization = async (w: Parameters<typeof addMember>[0], name = 'Second company') => {
  const organizationId = randomUuid()
  const environmentId = await allocateId(w.log, 'environment', context())
  const userId = await allocateId(w.log, 'user', context())
  const email = `owner-${organizationId.slice(0, 8)}@example.com`
  const created = await setUpOrganization(w.log, {
    organizationId, organizationName: name, userUuid: randomUuid(), userId, email, firstName: 'Second', projectId: environmentId, environmentId,
  }, context())
  const key = await issueApiKey(w.log, { userUuid: created.user_uuid, scopes: ['*'], label: 'test' }, context())
  await w.models.waitFor((await w.log.headPosition())!, ['users', 'personal_api_keys', 'environments', 'organizations', 'projects'])
  return { ...created, email, key: key.value, headers: { authorization: `Bearer ${key.value}` } }
}
