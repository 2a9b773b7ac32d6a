import { DomainError } from '../kernel/errors.js'

/**
 * A query node that does not match the schema. PostHog's query endpoint validates the body with
 * pydantic and raises DRF's ParseError, so the wire shows `invalid_request` / `parse_error`
 * and a detail that starts with "JSON parse error - ".
 */
export class QueryParseError extends DomainError {
  override name = 'QueryParseError'
  constructor(detail: string) {
    super(400, 'invalid_request', 'parse_error', `JSON parse error - ${detail}`)
  }
}

/**
 * A valid query the engine will not run: a filter or math that needs something Hedgelog does not
 * have (cohorts, actions, HogQL), or values that cannot be used (an inverted `between`, a formula
 * that does not parse, too many buckets). PostHog answers its own query errors with 400
 * `validation_error`, which this follows.
 */
export class QueryRefused extends DomainError {
  override name = 'QueryRefused'
  constructor(message: string, code: 'invalid_input' | 'unsupported_query' = 'invalid_input', attr: string | null = null) {
    super(400, 'validation_error', code, message, attr)
  }
}

/** An error's body as PostHog writes it. */
export interface ErrorBody {
  readonly type: string
  readonly code: string
  readonly detail: string
  readonly attr: string | null
}

export const errorBody = (error: DomainError): ErrorBody => ({ type: error.type, code: error.code, detail: error.message, attr: error.attr })
