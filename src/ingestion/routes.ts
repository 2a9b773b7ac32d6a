import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { EventLog } from '../eventlog/port.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { z } from 'zod'
import { clientIp } from '../http/client-ip.js'
import { queryOf } from '../http/zod.js'
import { capture } from './capture.js'
import { v1Token } from './capture-v1.js'
import { answerPreflight } from './cors.js'
import { decodingFailed, internalError, tooLarge, unavailable, unknownToken } from './errors.js'
import { isLoggedFailure, retryAfterOf } from '../http/errors.js'
import { StoresNotReached } from '../http/store-gate.js'
import { isTransientStoreError } from '../kernel/storage-errors.js'
import { Overloaded } from '../kernel/errors.js'
import { CaptureError } from '../http/capture-error.js'
import { TokenResolver } from './environments.js'
import { DecodePool } from './decode-pool.js'

export interface IngestDeps {
  readonly log: EventLog
  readonly models: ReadModels
  /** One token cache for every public endpoint of the process; a fresh one when not given. */
  readonly tokens?: TokenResolver
  /** Threads that decode heavy requests; a pool of this plugin's own when not given. */
  readonly decoder?: DecodePool
}

const MiB = 1024 * 1024
/** PostHog's body limits as received: 20 MiB for `/batch`, 2 MiB for the others. */
const BATCH_BODY_LIMIT = 20 * MiB
const EVENT_BODY_LIMIT = 2 * MiB

/** The capture paths PostHog serves; `/e` and the Mixpanel-style ones are its legacy aliases. */
const CAPTURE_PATHS = ['/e', '/i/v0/e', '/capture', '/track', '/engage', '/batch'] as const

const OK_BODY = '{"status":1}'

/** The query parameters capture reads (the decoder reads `data`, `compression` and `ver`; `_` is sent-at; `beacon` asks for a 204). */
const IngestQuery = queryOf('data', 'compression', 'ver', '_', 'beacon', 'ip', 'token', 'api_key')
type IngestQuery = z.infer<typeof IngestQuery>


/**
 * Every body reaches the ingestion routes as raw bytes, whatever its Content-Type, so the decoder
 * can follow PostHog's own rules. Parsers are scoped to the plugin this is called in.
 */
export const useRawBodies = (app: FastifyInstance): void => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
}

const toCaptureError = (error: unknown): CaptureError => {
  if (error instanceof CaptureError) return error
  if (error instanceof StoresNotReached || error instanceof Overloaded || isTransientStoreError(error)) return unavailable()
  const status = (error as { statusCode?: number }).statusCode
  if (status === 413) return tooLarge('request body is too large')
  if (status === 400 || status === 415) return decodingFailed((error as Error).message)
  return internalError()
}

/** Refusals in capture's shape (`{status, code, error}`), for every route of the plugin this is called in. */
export const useCaptureErrors = (app: FastifyInstance): void => {
  app.setErrorHandler((error, request, reply) => {
    const refusal = toCaptureError(error)
    if (refusal.status === 503) void reply.header('retry-after', String(retryAfterOf(error) ?? 1))
    if (isLoggedFailure(refusal.status, error)) request.log.error({ err: error }, 'capture failed')
    return reply.status(refusal.status).send(refusal.body)
  })
}

/** `/capture/`, `/batch/` and PostHog's other capture paths, with CORS and PostHog's error bodies. */
export const ingestRoutes: FastifyPluginAsync<IngestDeps> = async (app, deps) => {
  const tokens = deps.tokens ?? new TokenResolver(deps)
  const decoder = deps.decoder ?? new DecodePool()
  if (!deps.decoder) app.addHook('onClose', () => decoder.close())
  useRawBodies(app)
  useCaptureErrors(app)

  /** Captures what `request` carries, read as `/engage` reads it or as a v1 body with its header's token. */
  const captureFrom = (request: FastifyRequest, engage: boolean, v1Token?: string) => capture({
    log: deps.log,
    resolveToken: (token) => tokens.resolve(token),
    onDrop: (reason) => request.log.debug({ reason }, 'event dropped'),
    decoder,
  }, { body: request.body, headers: request.headers, query: request.query, ip: clientIp(request.headers['x-forwarded-for'], request.socket.remoteAddress), engage, v1Token })

  const handle = (path: string) => async (request: FastifyRequest<{ Querystring: IngestQuery }>, reply: FastifyReply) => {
    await captureFrom(request, path === '/engage')
    if (request.query.beacon === '1') return reply.status(204).send()
    return reply.header('content-type', 'application/json; charset=utf-8').send(OK_BODY)
  }

  // posthog-node's opt-in v1 mode: the token in the Authorization header, one JSON batch per request.
  // The token is known before the body is read, so a request for no project costs no decoding;
  // the body is then decoded like any other, on a decoding thread when it is heavy.
  app.post('/i/v1/analytics/events', { bodyLimit: BATCH_BODY_LIMIT }, async (request, reply) => {
    const token = v1Token(request.headers.authorization)
    if (await tokens.resolve(token) === null) throw unknownToken()
    await captureFrom(request, false, token)
    return reply.send({ results: {} })
  })
  app.options('/i/v1/analytics/events', answerPreflight)

  for (const path of CAPTURE_PATHS) {
    const bodyLimit = path === '/batch' ? BATCH_BODY_LIMIT : EVENT_BODY_LIMIT
    app.route<{ Querystring: IngestQuery }>({ method: ['GET', 'POST'], url: path, bodyLimit, schema: { querystring: IngestQuery }, handler: handle(path) })
    app.options(path, answerPreflight)
  }
}
