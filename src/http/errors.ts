import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ZodError } from 'zod'
import { DomainError, Overloaded, type ErrorType } from '../kernel/errors.js'
import { Throttled } from '../auth/rate-limit.js'
import { isBrokenStoreError, isTransientStoreError } from '../kernel/storage-errors.js'
import { StoresNotReached } from './store-gate.js'
import { invalidChoice } from '../kernel/python-text.js'

export interface ErrorBody {
  readonly type: ErrorType
  readonly code: string
  readonly detail: string
  readonly attr: string | null
}

const body = (type: ErrorType, code: string, detail: string, attr: string | null = null): ErrorBody => ({ type, code, detail, attr })

const valueAt = (data: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined), data)

/** The first failing field, worded as Django REST framework words it (PostHog reports only the first). */
const fromZod = (error: ZodError, request: FastifyRequest, context: string | undefined): ErrorBody => {
  const issue = error.issues[0]!
  const attr = issue.path.length > 0 ? issue.path.map(String).join('__') : null
  const source = context === 'querystring' ? request.query : context === 'params' ? request.params : request.body
  const value = valueAt(source, issue.path)
  if (value === undefined && issue.code === 'invalid_type') return body('validation_error', 'required', 'This field is required.', attr)
  if (value === null && issue.code === 'invalid_type') return body('validation_error', 'null', 'This field may not be null.', attr)
  if (issue.code === 'custom' && typeof issue.params?.['drfCode'] === 'string') {
    // A nested serializer in PostHog names the field from its own root (`text__body`), not the request's.
    const named = typeof issue.params['attr'] === 'string' ? issue.params['attr'] : attr
    return body('validation_error', issue.params['drfCode'], issue.message, named)
  }
  if (issue.code === 'invalid_value') return body('validation_error', 'invalid_choice', invalidChoice(value), attr)
  return body('validation_error', 'invalid_input', issue.message, attr)
}

/** Maps anything thrown by a route to PostHog's error shape; 5xx never carries internal text. */
export const toHttpError = (error: unknown, request: FastifyRequest): { status: number; body: ErrorBody } => {
  if (error instanceof DomainError) return { status: error.status, body: body(error.type, error.code, error.message, error.attr) }
  if (error instanceof ZodError) {
    return { status: 400, body: fromZod(error, request, (error as { validationContext?: string }).validationContext) }
  }
  if (error instanceof StoresNotReached || isTransientStoreError(error) || isBrokenStoreError(error)) {
    return { status: 503, body: body('server_error', 'service_unavailable', 'Storage is unavailable at the moment. Please retry shortly.') }
  }
  const fastifyError = error as Partial<FastifyError>
  const status = fastifyError.statusCode ?? 500
  if (status === 413) return { status, body: body('invalid_request', 'request_too_large', 'Request body is too large.') }
  if (status === 415) return { status, body: body('invalid_request', 'unsupported_media_type', `Unsupported media type "${request.headers['content-type'] ?? ''}" in request.`) }
  if (status === 400) return { status, body: body('validation_error', 'parse_error', `Malformed request: ${fastifyError.message ?? 'unreadable body'}`) }
  if (status >= 400 && status < 500) return { status, body: body('invalid_request', 'invalid_request', fastifyError.message ?? 'Invalid request.') }
  return { status: 500, body: body('server_error', 'error', 'A server error occurred.') }
}

/**
 * What the router refuses before any route runs (a path parameter past its length, a path that is
 * not valid percent-encoding), in PostHog's shape instead of the framework's, without echoing
 * the path back.
 */
export const answerFrameworkError = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(414).send(body('invalid_request', 'uri_too_long', 'A segment of the path is too long.'))
  } else if (error.code === 'FST_ERR_BAD_URL') {
    void reply.status(400).send(body('invalid_request', 'invalid_url', 'The path is not valid percent-encoding.'))
  } else {
    const { status, body: payload } = toHttpError(error, request)
    void reply.status(status).send(payload)
  }
}

/** Seconds before a store that failed for a passing reason is worth asking again. */
const STORE_RETRY_AFTER_SECONDS = 2

/** Seconds a client should wait before sending again what failed with `error`, when waiting can help. */
export const retryAfterOf = (error: unknown): number | undefined => {
  if (error instanceof Throttled) return error.retryAfterSeconds
  if (error instanceof DomainError) return error.retryAfter
  if (error instanceof StoresNotReached) return error.retryAfter
  return isTransientStoreError(error) ? STORE_RETRY_AFTER_SECONDS : undefined
}

/** A server error worth a line in the log: not a request refused while the stores are still awaited (one line said so), nor one refused for load. */
export const isLoggedFailure = (status: number, error: unknown): boolean =>
  status >= 500 && !(error instanceof StoresNotReached) && !(error instanceof Overloaded)

export const useErrorHandling = (app: FastifyInstance): void => {
  app.setErrorHandler((error, request, reply) => {
    const { status, body: payload } = toHttpError(error, request)
    const retryAfter = retryAfterOf(error)
    if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter))
    if (isLoggedFailure(status, error)) request.log.error({ err: error }, 'request failed')
    return reply.status(status).send(payload)
  })
  app.setNotFoundHandler((_request, reply) => reply.status(404).send(body('invalid_request', 'not_found', 'Not found.')))
}
