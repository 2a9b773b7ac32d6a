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
  }
}
