import type { FastifyInstance, FastifyRequest } from 'fastify'
import { timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import { AuthenticationFailed, NotAuthenticated, PermissionDenied } from '../kernel/errors.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { EventLog } from '../eventlog/port.js'
import { hashApiKey } from './api-key-hash.js'
import { TEAM_SCOPED_ELSEWHERE } from './key-reach.js'
import type { Principal } from './principal.js'
import { grants } from './scopes.js'
import { boundedCache } from '../kernel/bounded-cache.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scopes a route needs; a route that declares none is public. */
    scopes?: readonly string[]
    /** False for actions PostHog maps to no scope: scoped keys (even `*`) are refused, legacy keys pass. */
    scopedKeys?: boolean
    /**
     * The route names its environment some other way than a `:project_id` parameter (a project
     * token) and checks a team-scoped key itself; other routes without one refuse such keys.
     */
    projectScoped?: boolean
  }
  interface FastifyRequest {
    principal: Principal | null
  }
}

export interface AuthDeps {
  readonly models: ReadModels
  readonly log: EventLog
}

const BEARER = /^Bearer\s+(\S.+)$/

/** How long an unknown key waits for the key projections to reach the head of the log. */
const UNKNOWN_KEY_WAIT_MS = 500

/** PostHog tries one place only, the first that has a key: header, then body, then query string. */
const presentedKey = (request: FastifyRequest): { key: string; source: string } | null => {
  const header = request.headers.authorization
  const bearer = typeof header === 'string' ? BEARER.exec(header.trim()) : null
  if (bearer) return { key: bearer[1]!.trim(), source: 'Authorization header' }
  const body = Carrier.safeParse(request.body)
  if (body.success && body.data.personal_api_key !== undefined) return { key: body.data.personal_api_key, source: 'body' }
  const query = Carrier.safeParse(request.query)
  if (query.success && query.data.personal_api_key !== undefined) return { key: query.data.personal_api_key, source: 'query string' }
  return null
}

/** A body or query string that may carry a key; anything else in it is the route's business. */
const Carrier = z.looseObject({ personal_api_key: z.string().optional() })

/** Stored and presented key hashes, compared in constant time. */
const sameHash = (stored: unknown, presented: string): boolean =>
  typeof stored === 'string' && stored.length === presented.length && timingSafeEqual(Buffer.from(stored), Buffer.from(presented))

const resolveKey = async (models: ReadModels, key: string): Promise<Principal | null> => {
  const hash = hashApiKey(key)
  const [record] = await models.find('personal_api_keys', { where: { secure_value: hash }, limit: 1 })
  if (!record || !sameHash(record['secure_value'], hash) || record['revoked_at'] !== null) return null
  const user = await models.get('users', String(record['user_uuid'])) as Principal['user'] | null
  // A member removed from their organization keeps the user record, but none of their keys works.
  if (!user || typeof user.organization_id !== 'string') return null
  return {
    keyId: String(record['id']), scopes: (record['scopes'] ?? null) as string[] | null, user,
    scopedTeams: (record['scoped_teams'] ?? null) as number[] | null,
    scopedOrganizations: (record['scoped_organizations'] ?? null) as string[] | null,
  }
}

/** The read models a principal is read from. */
const KEY_MODELS = ['personal_api_keys', 'users'] as const
/** Principals kept at most; the least recently used go first. */
const REMEMBERED = 10_000

/**
 * Principals by key, kept in memory while the read models they were read from have not moved:
 * any event those projections apply or pass (an issued or revoked key, a removed member) makes
 * the next request read again, so a cached principal is never older than the read models.
 */
class KnownPrincipals {
  private readonly byKey = boundedCache<string, { readonly stamp: string; readonly principal: Principal }>({ max: REMEMBERED })

  constructor(private readonly models: ReadModels) {}

  /** The principal kept for `key` while the key read models stand still; undefined when it must be read. */
  peek(key: string): Principal | undefined {
    return this.kept(key, this.models.stamp(KEY_MODELS))
  }

  private kept(key: string, stamp: string | null): Principal | undefined {
    const hit = stamp === null ? undefined : this.byKey.get(key)
    return hit?.stamp === stamp ? hit.principal : undefined
  }

  async resolve(key: string): Promise<Principal | null> {
    const stamp = this.models.stamp(KEY_MODELS)
    const kept = this.kept(key, stamp)
    if (kept) return kept
    const principal = await resolveKey(this.models, key)
    if (stamp !== null && principal !== null) this.byKey.set(key, { stamp, principal })
    return principal
  }
}

/**
 * Authenticates routes that declare `config.scopes`. An unknown key may have just been issued
 * by `hedgelog keys create` in another process, so before refusing it the projections are given
 * the chance to catch up with the head of the log.
 */
export const useAuth = (app: FastifyInstance, deps: AuthDeps): void => {
  app.decorateRequest('principal', null)
  const known = new KnownPrincipals(deps.models)
  const authenticate = async (request: FastifyRequest, route: Route, presented: Presented): Promise<void> => {
    let principal = await known.resolve(presented.key)
    if (!principal) {
      // A short wait, so a flood of unknown keys cannot hold requests open while projections lag;
      // then always a fresh look, since the key may have been projected as the wait ran out.
      const head = await deps.log.headPosition()
      if (head) await deps.models.waitFor(head, KEY_MODELS, UNKNOWN_KEY_WAIT_MS)
      principal = await known.resolve(presented.key)
    }
    if (!principal) throw new AuthenticationFailed(`Personal API key found in request ${presented.source} is invalid.`)
    admit(request, route, principal)
  }
  // Public routes (capture, decide), and keys known and still current, pass without a promise.
  app.addHook('preHandler', (request, _reply, done) => {
    // Each read of `routeOptions` builds it anew: once per request.
    const route = request.routeOptions
    if (route.config.scopes === undefined) return done()
    const presented = presentedKey(request)
    if (!presented) return done(new NotAuthenticated())
    const principal = known.peek(presented.key)
    if (principal === undefined) return void authenticate(request, route, presented).then(() => done(), done)
    try {
      admit(request, route, principal)
    } catch (error) {
      return done(error as Error)
    }
    done()
  })
}

type Route = FastifyRequest['routeOptions']
type Presented = NonNullable<ReturnType<typeof presentedKey>>

/** Lets the key's principal call the route, or refuses it for what the key may not do there. */
const admit = (request: FastifyRequest, { config, url }: Route, principal: Principal): void => {
  if (config.scopedKeys === false && principal.scopes !== null) {
    throw new PermissionDenied('This action does not support Personal API Key access')
  }
  if (principal.scopedTeams !== null && config.projectScoped !== true && !(url ?? '').includes(':project_id')) {
    throw new PermissionDenied(TEAM_SCOPED_ELSEWHERE)
  }
  const missing = config.scopes!.find((scope) => !grants(principal.scopes, scope))
  if (missing !== undefined) throw new PermissionDenied(`API key missing required scope '${missing}'`)
  request.principal = principal
}

/** The principal of a route that declared scopes (the hook guarantees one). */
export const principalOf = (request: FastifyRequest): Principal => {
  if (!request.principal) throw new NotAuthenticated()
  return request.principal
}
