import type { FastifyInstance } from 'fastify'

/** Parameters whose values are secrets or carry them: keys, tokens, and ingestion payloads (which hold the token). */
const SECRET_PARAMETERS = new Set(['personal_api_key', 'api_key', 'token', '$token', 'data'])
/** Values that are keys or tokens whatever the parameter is called. */
const SECRET_VALUE = /ph[xc]_/i

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/** Path segments that hold a key or token (`/array/{token}/config`), decoded first. */
const redactPath = (path: string): string =>
  path.split('/').map((segment) => (SECRET_VALUE.test(decoded(segment)) ? '[redacted]' : segment)).join('/')

/**
 * The URL with the value of every secret parameter replaced, recognised by its decoded name (so
 * `personal%5Fapi%5Fkey` is caught too), and any value that holds a key or token.
 */
export const redactUrl = (url: string): string => {
  const queryAt = url.indexOf('?')
  if (queryAt < 0) return redactPath(url)
  const hashAt = url.indexOf('#', queryAt)
  const query = url.slice(queryAt + 1, hashAt < 0 ? undefined : hashAt)
  const redacted = query.split('&').map((pair) => {
    const equals = pair.indexOf('=')
    if (equals < 0) return pair
    const name = decoded(pair.slice(0, equals)).toLowerCase()
    return SECRET_PARAMETERS.has(name) || SECRET_VALUE.test(decoded(pair.slice(equals + 1))) ? `${pair.slice(0, equals)}=[redacted]` : pair
  })
  return `${redactPath(url.slice(0, queryAt))}?${redacted.join('&')}${hashAt < 0 ? '' : url.slice(hashAt)}`
}

/** One line per completed request, with secrets in the URL redacted. */
export const logRequests = (app: FastifyInstance): void => {
  app.addHook('onResponse', (request, reply, done) => {
    if (!(request.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info')) return done()
    request.log.info({
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
    }, 'request completed')
    done()
  })
}
