import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { JsonObject } from '../eventlog/port.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { EventLog } from '../eventlog/port.js'
import { principalOf } from '../auth/authenticate.js'
import { commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { apiTime } from '../http/timestamps.js'
import type { ZodTypeProvider } from '../http/zod.js'
import { NotFound, PermissionDenied, ValidationFailed } from '../kernel/errors.js'
import { issueApiKey, revokeApiKey } from './commands.js'
import { CreateKeyBody, KeyParams } from './key-schemas.js'

export interface KeyRouteDeps {
  readonly log: EventLog
  readonly models: ReadModels
}

/** PostHog caps each user's keys. */
export const MAX_KEYS_PER_USER = 10

const NO_KEY_ACCESS = 'This action does not support Personal API Key access'

/** PostHog manages keys from a logged-in session only; Hedgelog's stand-in for one is a legacy key without scopes. */
const MANAGE = { scopes: [], scopedKeys: false }

export const keyJson = (key: JsonObject, userId: number, value: string | null = null) => ({
  id: key['id'],
  label: key['label'],
  value,
  mask_value: key['mask_value'],
  created_at: apiTime(String(key['created_at'])),
  last_used_at: null,
  last_rolled_at: null,
  user_id: userId,
  scopes: key['scopes'],
  scoped_teams: key['scoped_teams'] ?? [],
  scoped_organizations: key['scoped_organizations'] ?? [],
})

/** The caller's own personal API keys: list, create, get (`@current` is the calling key), revoke. */
export const keyRoutes: FastifyPluginAsync<KeyRouteDeps> = async (plain, { log, models }) => {
  useFormBodies(plain)
  const app = plain.withTypeProvider<ZodTypeProvider>()

  const ownKeys = async (request: FastifyRequest) => {
    const keys = await models.find('personal_api_keys', { where: { user_uuid: principalOf(request).user.uuid } })
    return keys.filter((k) => k['revoked_at'] === null).sort((a, b) => String(b['created_at']).localeCompare(String(a['created_at'])) || String(b['id']).localeCompare(String(a['id'])))
  }
  const ownKey = async (request: FastifyRequest, id: string) => {
    const key = await models.get('personal_api_keys', id)
    if (!key || key['user_uuid'] !== principalOf(request).user.uuid || key['revoked_at'] !== null) throw new NotFound()
    return key
  }

  app.get('/api/personal_api_keys/', { config: MANAGE }, async (request) =>
    (await ownKeys(request)).map((key) => keyJson(key, principalOf(request).user.id)))

  app.post('/api/personal_api_keys/', { config: MANAGE }, async (request, reply) => {
    const { user } = principalOf(request)
    const body = parseBody(CreateKeyBody, request.body)
    if ((await ownKeys(request)).length >= MAX_KEYS_PER_USER) {
      throw new ValidationFailed(`You can only have ${MAX_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`)
    }
    const teams = body.scoped_teams ?? []
    for (const id of teams) {
      const environment = await models.get('environments', String(id))
      if (!environment || environment['organization'] !== user.organization_id) {
        throw new ValidationFailed('You must be a member of all teams that you are scoping the key to.', 'scoped_teams')
      }
    }
    const organizations = (body.scoped_organizations ?? []).map((id) => id.toLowerCase())
    if (organizations.some((id) => id !== user.organization_id)) {
      throw new ValidationFailed('You must be a member of all organizations that you are scoping the key to.', 'scoped_organizations')
    }
    const issued = await issueApiKey(log, {
      userUuid: user.uuid, scopes: body.scopes, label: body.label, scopedTeams: teams, scopedOrganizations: organizations,
    }, commandContext(request))
    const key = await models.settled(issued.position, 'personal_api_keys', issued.id)
    if (!key) throw new NotFound()
    return reply.status(201).send(keyJson(key, user.id, issued.value))
  })

  // Any key may read itself as `@current`; the rest of key management refuses scoped keys.
  app.get('/api/personal_api_keys/:id/', { config: { scopes: [], projectScoped: true }, schema: { params: KeyParams } }, async (request) => {
    const principal = principalOf(request)
    const current = request.params.id === '@current'
    if (!current && principal.scopes !== null) throw new PermissionDenied(NO_KEY_ACCESS)
    return keyJson(await ownKey(request, current ? principal.keyId : request.params.id), principal.user.id)
  })

  app.delete('/api/personal_api_keys/:id/', { config: MANAGE, schema: { params: KeyParams } }, async (request, reply) => {
    const key = await ownKey(request, request.params.id)
    const position = await revokeApiKey(log, String(key['id']), commandContext(request))
    if (position) await models.waitFor(position, ['personal_api_keys'])
    return reply.status(204).send()
  })
}
