import type { FastifyInstance } from 'fastify'

/** Query parameters whose values are secrets: PostHog accepts keys and tokens in the URL. */
const SECRET_PARAMETERS = /([?&](?:personal_api_key|api_key|token)=)[^&#]*/gi

export const redactUrl = (url: string): string => url.replace(SECRET_PARAMETERS, '$1[redacted]')

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
