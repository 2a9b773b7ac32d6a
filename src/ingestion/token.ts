import { invalidToken, multipleTokens, noToken } from './errors.js'
import type { CaptureRequest, RawEvent } from './payload.js'

/** An event's own token: `token`, `$token`, `api_key`, then `properties.token`. */
export const eventToken = (event: RawEvent): string | undefined => {
  for (const key of ['token', '$token', 'api_key'] as const) {
    const value = event[key]
    if (typeof value === 'string') return value
  }
  const properties = event['properties']
  if (properties !== null && typeof properties === 'object') {
    const value = (properties as Record<string, unknown>)['token']
    if (typeof value === 'string') return value
  }
  return undefined
}

/** Why PostHog refuses a token's shape, or null when it is acceptable (after trimming). */
export const tokenProblem = (token: string): string | null => {
  if (token === '') return 'empty'
  if (token.length > 64) return 'too_long'
  if (!/^[\x00-\x7f]*$/.test(token)) return 'not_ascii'
  if (token.startsWith('phx_')) return 'personal_api_key'
  if (token.includes('\0')) return 'null_byte'
  return null
}

/**
 * The project token of a request, as PostHog capture finds it: the batch's own `api_key` or
 * `token` first; otherwise the one token the events agree on (none → 401, two or more → 400).
 */
export const requestToken = (request: CaptureRequest): string => {
  let token: string | undefined
  if (typeof request.batchToken === 'string') {
    token = request.batchToken
  } else {
    for (const event of request.events) {
      const found = eventToken(event)
      if (found === undefined) continue
      if (token !== undefined && found !== token) throw multipleTokens()
      token = found
    }
  }
  if (token === undefined) throw noToken()
  const trimmed = token.trim()
  const problem = tokenProblem(trimmed)
  if (problem !== null) throw invalidToken(problem)
  return trimmed
}
