import { parseArgs } from 'node:util'
import type { EventLog } from '../eventlog/port.js'
import { issueApiKey, readInstallation, revokeApiKey } from '../accounts/commands.js'
import { apiKeyDecider } from '../accounts/deciders.js'
import { apiKeyStream, organizationStream, type PersonalApiKeyCreated } from '../accounts/events.js'
import { setUpOrganization } from '../accounts/organization-setup.js'
import { findUser } from '../accounts/user-accounts.js'
import { acceptInvite } from '../invites/accept.js'
import { readAggregate, type CommandContext } from '../kernel/handle-command.js'
import { randomUuid } from '../kernel/ids.js'
import { allocateId } from '../kernel/sequence.js'
import { memberLevels, organizationDecider } from '../organizations/decider.js'
import type { OrganizationEvent } from '../accounts/events.js'
import { UsageError, cliContext, lines, print } from './usage.js'

/** The user a `--user` names (e-mail or uuid), who must still be a member of their organization. */
const memberNamed = async (log: EventLog, name: string): Promise<string> => {
  const user = await findUser(log, name)
  if (!user) throw new UsageError(`no user ${name}`)
  const { events } = await readAggregate<OrganizationEvent>(log, organizationStream(user.organizationId))
  const state = events.reduce(organizationDecider.evolve, organizationDecider.initialState())
  if (!memberLevels(state, { [user.userUuid]: user.membershipLevel }).has(user.userUuid)) throw new UsageError(`${name} is no longer a member of an organization`)
  return user.userUuid
}

/** What `orgs create` makes: an organization with its owner, a project, an environment and the owner's first key. */
export const createOrganizationWithOwner = async (log: EventLog, request: { name: string; email?: string }, context: CommandContext) => {
  const organizationId = randomUuid()
  const environmentId = await allocateId(log, 'environment', context)
  const userId = await allocateId(log, 'user', context)
  const email = request.email ?? `owner-${organizationId.slice(0, 8)}@hedgelog.local`
  const created = await setUpOrganization(log, {
    organizationId, organizationName: request.name, userUuid: randomUuid(), userId, email, firstName: 'Owner', projectId: environmentId, environmentId,
  }, context)
  const key = await issueApiKey(log, { userUuid: created.user_uuid, scopes: ['*'], label: 'hedgelog orgs create' }, context)
  return { ...created, email, key }
}

/** `orgs create --name N [--email E]`: an organization with its owner, a project, an environment and the owner's first key. */
export const orgs = async (log: EventLog, args: string[]): Promise<void> => {
  const [action, ...rest] = args
  if (action !== 'create') throw new UsageError('orgs takes: create --name N [--email E] [--json]')
  const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, email: { type: 'string' }, json: { type: 'boolean', default: false } } })
  const name = values.name?.trim() ?? ''
  if (name === '' || name.length > 64) throw new UsageError('orgs create needs --name (1 to 64 characters)')
  const { key, ...created } = await createOrganizationWithOwner(log, { name, email: values.email }, cliContext())
  const result = { ...created, personal_api_key: key.value, personal_api_key_id: key.id }
  print(values.json, result, lines(result))
}

/** `invites accept <id> --first-name F`: the invitee becomes a user at the invited level, with a first key. */
export const invites = async (log: EventLog, args: string[]): Promise<void> => {
  const [action, ...rest] = args
  if (action !== 'accept') throw new UsageError('invites takes: accept <invite id> --first-name F [--json]')
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { 'first-name': { type: 'string' }, json: { type: 'boolean', default: false } } })
  if (positionals.length !== 1) throw new UsageError('invites accept needs exactly one invite id')
  const firstName = values['first-name']?.trim() ?? ''
  if (firstName === '' || firstName.length > 150) throw new UsageError('invites accept needs --first-name (1 to 150 characters)')
  const accepted = await acceptInvite(log, positionals[0]!, firstName, cliContext())
  const result = {
    user_uuid: accepted.user_uuid, organization_id: accepted.organization_id, email: accepted.email, level: accepted.level,
    personal_api_key: accepted.key.value, personal_api_key_id: accepted.key.id,
  }
  print(values.json, result, lines(result))
}

const keyOwner = async (log: EventLog, keyId: string): Promise<string | null> => {
  const { events } = await readAggregate<PersonalApiKeyCreated>(log, apiKeyStream(keyId))
  const state = events.reduce(apiKeyDecider.evolve, apiKeyDecider.initialState())
  return state.status === 'missing' ? null : state.userUuid
}

/** What `keys create` issues: a key for the init user or, when `user` (e-mail or uuid) is given, for that member. */
export const createKey = async (log: EventLog, request: { user?: string; scopes: string[] | null; label: string }, context: CommandContext) => {
  let userUuid: string
  if (request.user !== undefined) userUuid = await memberNamed(log, request.user)
  else {
    const installation = await readInstallation(log)
    if (!installation) throw new UsageError('no installation yet: run `hedgelog init` first')
    userUuid = installation.userUuid
  }
  return { key: await issueApiKey(log, { userUuid, scopes: request.scopes, label: request.label }, context), userUuid }
}

/** `keys create|revoke`, for the init user or, with `--user`, anyone's. */
export const keys = async (log: EventLog, args: string[]): Promise<void> => {
  const [action, ...rest] = args
  if (action === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        scopes: { type: 'string' }, unscoped: { type: 'boolean', default: false }, label: { type: 'string', default: 'hedgelog keys create' },
        user: { type: 'string' }, json: { type: 'boolean', default: false },
      },
    })
    if (!values.scopes && !values.unscoped) throw new UsageError('keys create needs --scopes (comma-separated, or * for all) or --unscoped')
    if (values.scopes && values.unscoped) throw new UsageError('keys create takes --scopes or --unscoped, not both')
    const scopes = values.unscoped ? null : values.scopes!.split(',')
    const { key, userUuid } = await createKey(log, { user: values.user, scopes, label: values.label }, cliContext())
    print(values.json, { personal_api_key: key.value, scopes: key.scopes, id: key.id, user_uuid: userUuid },
      `personal_api_key: ${key.value}\nid: ${key.id}\nuser_uuid: ${userUuid}\nscopes: ${key.scopes?.join(',') ?? '(legacy, unscoped)'}`)
    return
  }
  if (action === 'revoke') {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { user: { type: 'string' } } })
    if (positionals.length !== 1) throw new UsageError('keys revoke needs exactly one key id')
    const keyId = positionals[0]!
    if (values.user !== undefined) {
      const user = await findUser(log, values.user)
      if (!user) throw new UsageError(`no user ${values.user}`)
      if (await keyOwner(log, keyId) !== user.userUuid) throw new UsageError(`${values.user} has no key ${keyId}`)
    }
    await revokeApiKey(log, keyId, cliContext())
    process.stdout.write(`revoked ${keyId}\n`)
    return
  }
  throw new UsageError('keys takes: create … | revoke <key id> [--user EMAIL|UUID]')
}
