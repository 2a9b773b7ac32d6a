/** PostHog's error `type` values (drf-exceptions-hog). */
export type ErrorType = 'validation_error' | 'authentication_error' | 'invalid_request' | 'server_error' | 'throttled_error'

/**
 * An error with a place on the wire: status, PostHog's `type` and `code`, a human `detail`, and
 * the field it concerns (`attr`). Deciders and routes throw these; one formatter renders them.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly attr: string | null = null,
  ) {
    super(message)
  }

  /** Seconds a client should wait before trying again, sent as `Retry-After` when set. */
  retryAfter?: number
}

export class ValidationFailed extends DomainError {
  override name = 'ValidationFailed'
  constructor(message: string, attr: string | null = null, code = 'invalid_input') {
    super(400, 'validation_error', code, message, attr)
  }
}

export class NotFound extends DomainError {
  override name = 'NotFound'
  constructor(message = 'Not found.') {
    super(404, 'invalid_request', 'not_found', message)
  }
}

export class NotAuthenticated extends DomainError {
  override name = 'NotAuthenticated'
  constructor() {
    super(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.')
  }
}

export class AuthenticationFailed extends DomainError {
  override name = 'AuthenticationFailed'
  constructor(message: string) {
    super(401, 'authentication_error', 'authentication_failed', message)
  }
}

export class PermissionDenied extends DomainError {
  override name = 'PermissionDenied'
  constructor(message: string) {
    super(403, 'authentication_error', 'permission_denied', message)
  }
}

/** Another writer kept winning the race for the same aggregate. */
export class ConcurrencyConflict extends DomainError {
  override name = 'ConcurrencyConflict'
  constructor(stream: string) {
    super(409, 'invalid_request', 'conflict', `The resource was changed by another request too many times (${stream}); try again.`)
  }
}

export const assertNever = (value: never): never => {
  throw new TypeError(`unexpected value: ${JSON.stringify(value)}`)
}

/** Read models are being built from the log and would answer with part of the data. */
export class ReadModelsCatchingUp extends DomainError {
  override name = 'ReadModelsCatchingUp'
  constructor(readonly projections: readonly string[]) {
    super(503, 'server_error', 'service_unavailable', `Read models are being rebuilt from the event log (${projections.join(', ')}). Please retry shortly.`)
    this.retryAfter = 2
  }
}

/** The process is past a bound of its load (see `http/admission.ts`); the client should retry after `retryAfter` seconds. */
export class Overloaded extends DomainError {
  override name = 'Overloaded'
  constructor(retryAfterSeconds: number) {
    super(503, 'server_error', 'service_unavailable', `The service is under too much load to take this request now. Please retry in ${retryAfterSeconds} s.`)
    this.retryAfter = retryAfterSeconds
  }
}

/**
 * A command was written but its result cannot be read yet (the read model has not caught up
 * within the wait). The change stands; the same request retried with its `Idempotency-Key`
 * answers its result without writing it again.
 */
export class ResultNotReadable extends DomainError {
  override name = 'ResultNotReadable'
  constructor() {
    super(503, 'server_error', 'service_unavailable', 'The change was saved but cannot be read back yet. Please retry shortly.')
    this.retryAfter = 2
  }
}

/** One event of a change is larger than the event log stores. */
export class ChangeTooLarge extends DomainError {
  override name = 'ChangeTooLarge'
  constructor(readonly size: number, readonly limit: number) {
    super(413, 'validation_error', 'request_too_large', `This change is too large to store (${size} bytes; at most ${limit}).`)
  }
}
