import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import { queryOf } from '../http/zod.js'
import { isJsonObject, type EventLog, type JsonObject } from '../eventlog/port.js'
import { DomainError } from '../kernel/errors.js'
import { isLoggedFailure, retryAfterOf, toHttpError } from '../http/errors.js'
import { randomUuid } from '../kernel/ids.js'
import { decodeIngestBody } from '../ingestion/decode.js'
import { answerPreflight } from '../ingestion/cors.js'
import { TokenResolver } from '../ingestion/environments.js'
import { useRawBodies } from '../ingestion/routes.js'
import { CaptureError } from '../http/capture-error.js'
import { groupPropertiesFor, personPropertiesFor, personPropertiesNow } from '../persons/read.js'
import type { ReadModels } from '../readstore/read-models.js'
import { clientIp } from '../http/client-ip.js'
import { decideConfig, type DecideConfig, type DecideSettings } from './decide-config.js'
import { evaluateFlags, pickProperties } from './evaluate.js'
import { FlagDefinitionCache } from './flag-cache.js'
import { EvaluationMemo } from './evaluation-memo.js'
import { createGeoip, type Geoip } from './geoip.js'
import type { Properties } from './match-context.js'
import { readDecideRequest, type DecideRequest } from './request.js'
import { decideVersion } from './responses.js'
import { decideBody } from './response-json.js'
import { emptyEvaluation, type EvaluationResult } from './results.js'
import { ownValue } from '../kernel/own-value.js'

export interface DecideDeps {
  readonly log: EventLog
  readonly models: ReadModels
  /** Shared so tests and the process can reuse one loaded database. */
  readonly geoip?: Geoip
  /** The token cache capture uses too; a fresh one when not given. */
  readonly tokens?: TokenResolver
}

const NO_TOKEN = 'No project API key provided. You can find your project API key in PostHog project settings.'
const BAD_TOKEN = 'Project API key invalid. You can find your project API key in PostHog project settings.'

const refuse = (status: number, type: 'authentication_error' | 'validation_error', code: string, detail: string) =>
  new DomainError(status, type, code, detail)

const JSON_TYPE = 'application/json; charset=utf-8'

const TOO_LARGE = new DomainError(413, 'validation_error', 'request_too_large', 'Request body is too large.')

/**
 * Decide answers in the management API's error shape; what the capture decoder refuses (and a
 * Content-Type that is no media type at all, 415 from fastify) is malformed data to decide.
 */
const asDecideRefusal = (error: unknown): unknown => {
  const status = error instanceof CaptureError ? error.status : (error as { statusCode?: number }).statusCode
  if (status === 413) return TOO_LARGE
  if (error instanceof CaptureError || status === 400 || status === 415) {
    return new DomainError(400, 'validation_error', 'malformed_data', `Malformed request data: ${(error as Error).message}`)
  }
  return error
}

/**
 * Decide's bound on a request body, received and decoded: many times any SDK's request (a
 * person's and its groups' properties, a few KiB), and small enough that parsing it holds the
 * event loop for a few milliseconds at most, whatever it holds. JSON made only of short keys is
 * the slowest to parse: 64 KiB of it takes 3–4 ms, 256 KiB 15–18 ms.
 */
export const DECIDE_BODY_BYTES = 64 * 1024

/** The query parameters decide reads (ingestion's decoder reads its own: `compression`, `data`, `ip`…). */
const DecideQuery = queryOf('v', 'config', 'token', 'api_key')
type DecideQuery = z.infer<typeof DecideQuery>

/**
 * `/decide` (v1–v4) and `/flags` (v1, v2): flag values for one distinct id, from the flag,
 * person and group read models, overridden by what the request sends.
 */
export const decideRoutes: FastifyPluginAsync<DecideDeps> = async (app, deps) => {
  const { models } = deps
  const tokens = deps.tokens ?? new TokenResolver(deps)
  const flags = new FlagDefinitionCache(models)
  const memo = new EvaluationMemo()
  const geoip = deps.geoip ?? createGeoip()
  // An environment's settings change rarely; decide reads them at most once a second per environment.
  const configs = new Map<number, { config: DecideConfig; until: number }>()
  const configOf = (environmentId: number): DecideConfig | Promise<DecideConfig> => {
    const cached = configs.get(environmentId)
    return cached && cached.until > Date.now() ? cached.config : readConfig(environmentId)
  }
  const readConfig = async (environmentId: number): Promise<DecideConfig> => {
    const environment = await models.get('environments', String(environmentId))
    const config = decideConfig((environment?.['settings'] ?? {}) as DecideSettings)
    configs.set(environmentId, { config, until: Date.now() + 1000 })
    return config
  }
  useRawBodies(app)
  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toHttpError(asDecideRefusal(error), request)
    const retryAfter = retryAfterOf(error)
    if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter))
    if (isLoggedFailure(status, error)) request.log.error({ err: error }, 'decide failed')
    return reply.status(status).send(body)
  })

  /** Stored properties overridden by GeoIP and then by the request's own. Failures to read set the errors flag. */
  const evaluate = async (request: FastifyRequest, environmentId: number, asked: DecideRequest & { distinctId: string }): Promise<EvaluationResult> => {
    const { compiled, continuityKeys } = flags.currentNow(environmentId) ?? await flags.forEnvironment(environmentId)
    let failed = false
    const kept = personPropertiesNow(models, environmentId, asked.distinctId)
    const stored = kept !== undefined ? kept : await personPropertiesFor(models, environmentId, asked.distinctId).catch(() => { failed = true; return null })
    const ip = asked.geoipDisable ? null : clientIp(request.headers['x-forwarded-for'], request.socket.remoteAddress)
    const located = ip === null ? null : geoip.lookup(ip)
    // Keyed by the request's group type names: a type named `__proto__` must be a key like any other.
    const groupProperties = Object.create(null) as Record<string, Properties>
    for (const [typeName, key] of Object.entries(asked.groups)) {
      const index = [...compiled.groupTypes].find(([, name]) => name === typeName)?.[0]
      const storedGroup = index === undefined || (typeof key !== 'string' && typeof key !== 'number')
        ? null
        : await groupPropertiesFor(models, environmentId, index, String(key)).catch(() => { failed = true; return null })
      groupProperties[typeName] = pickProperties(compiled.propertyKeys, storedGroup as JsonObject | null, ownValue(asked.groupProperties, typeName))
    }
    const result = evaluateFlags({
      definitions: compiled,
      distinctId: asked.distinctId,
      personProperties: personPropertiesOf(compiled.propertyKeys, stored, located as Properties | null, asked.personProperties),
      groups: asked.groups,
      groupProperties,
      ...(asked.anonDistinctId ? { hashKeyOverrides: continuityOverrides(continuityKeys, asked.anonDistinctId) } : {}),
      flagKeys: asked.flagKeys,
      now: Date.now(),
      remembered: memo.of(compiled, asked.distinctId),
    })
    return failed ? { ...result, errorsWhileComputingFlags: true } : result
  }

  const handle = async (request: FastifyRequest<{ Querystring: DecideQuery }>, reply: FastifyReply) => {
    const routing = decideVersion(request.url, request.query)
    const asked = readDecideRequest(request.method === 'GET' ? {} : await decodeIngestBody(request, { maxDecodedBytes: DECIDE_BODY_BYTES }), request.query)
    if (asked.token === null) throw refuse(401, 'authentication_error', 'no_api_key', NO_TOKEN)
    const environmentId = await tokens.resolve(asked.token)
    if (environmentId === null) throw refuse(401, 'authentication_error', 'invalid_api_key', BAD_TOKEN)
    let result: EvaluationResult = emptyEvaluation()
    if (request.method === 'POST' && !asked.disableFlags) {
      if (asked.distinctId === null) throw refuse(400, 'validation_error', 'missing_distinct_id', 'Decide requires a distinct_id.')
      result = await evaluate(request, environmentId, { ...asked, distinctId: asked.distinctId })
    }
    const body = decideBody(routing, result, { config: routing.includeConfig ? await configOf(environmentId) : null, requestId: randomUuid() })
    return reply.header('content-type', JSON_TYPE).send(body)
  }

  for (const path of ['/decide', '/flags']) {
    app.route<{ Querystring: DecideQuery }>({ method: ['GET', 'POST'], url: path, bodyLimit: DECIDE_BODY_BYTES, schema: { querystring: DecideQuery }, handler: handle })
    app.options(path, answerPreflight)
  }
}

/**
 * Stored properties overridden by GeoIP and then by the request's own, as far as the flags read
 * them. Stored properties alone are used as they are, not copied: the engine reads only their own
 * keys, as it would read a copy's.
 */
const personPropertiesOf = (keys: readonly string[], stored: JsonObject | null, located: Properties | null, asked: Properties | null): Properties =>
  located === null && asked === null && stored !== null && isJsonObject(stored) ? stored : pickProperties(keys, stored, located, asked)

/** With experience continuity, the anonymous id a person started with keeps deciding their bucket. */
const continuityOverrides = (keys: readonly string[], anonDistinctId: string): Record<string, string> =>
  Object.fromEntries(keys.map((key) => [key, anonDistinctId]))
