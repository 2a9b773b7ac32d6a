import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AuthenticationFailed, DomainError } from '../kernel/errors.js'
import { CaptureError } from '../http/capture-error.js'
import { toHttpError } from '../http/errors.js'
import { KeyRateLimiter, Throttled, type RateWindow } from './rate-limit.js'

/** Failed authentications allowed per client address by default: a burst per minute, a sustained rate per hour. */
export const AUTH_FAILURE_LIMITS: readonly RateWindow[] = [{ limit: 100, ms: 60_000 }, { limit: 1000, ms: 3_600_000 }]

/** Addresses counted at once; a flood of fresh addresses forgets the oldest rather than growing without end. */
const COUNTED_ADDRESSES = 100_000

/**
 * A presented credential that matched nothing: a personal API key (401 `authentication_failed`),
 * or a project token on capture (`ingest_key_unknown`), `/decide`, `/flags` or surveys
 * (`invalid_api_key`). A request that presents none is not a guess and is not counted.
 */
export const isFailedAuthentication = (error: unknown): boolean =>
  error instanceof AuthenticationFailed
  || (error instanceof CaptureError && error.code === 'ingest_key_unknown')
  || (error instanceof DomainError && error.code === 'invalid_api_key')

/**
 * Counts failed authentications per client address (`addressOf`); once an address is over a
 * limit, every request from it is answered 429 `throttled_error` with `Retry-After` until the
 * window passes, before its body is read or any key is looked up, whatever it presents, so
 * guessing cannot go on by telling a right guess from the answer. Other addresses are not
 * touched. Until the limit, failures keep their own answers (401, or capture's 403).
 */
export const throttleFailedAuthentication = (
  app: FastifyInstance, windows: readonly RateWindow[], addressOf: (request: FastifyRequest) => string, clock: () => number = Date.now,
): void => {
  const failures = new KeyRateLimiter(windows, COUNTED_ADDRESSES)
  app.addHook('onRequest', (request, reply, done) => {
    const wait = failures.waiting(addressOf(request), clock())
    if (wait === null) return done()
    const { status, body } = toHttpError(new Throttled(wait), request)
    void reply.status(status).header('retry-after', String(wait)).send(body)
  })
  app.addHook('onError', (request, _reply, error, done) => {
    if (isFailedAuthentication(error)) failures.take(addressOf(request), clock())
    done()
  })
}
