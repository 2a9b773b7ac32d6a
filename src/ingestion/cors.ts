import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

const METHODS = 'GET, POST, OPTIONS'

/**
 * CORS as PostHog's public endpoints answer it: as permissive as browsers allow, so a page on any
 * origin can call them with credentials. The caller's Origin is mirrored on every response of the
 * app, errors and unmatched routes included, so a page can read a refusal or a 404 instead of
 * seeing a network failure. Management routes (those that require a personal key's scopes) are
 * left out: they are for servers and scripts, not for pages.
 */
export const useCors = (app: FastifyInstance): void => {
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin
    if (origin !== undefined && request.routeOptions.config.scopes === undefined) {
      reply.header('access-control-allow-origin', origin)
      reply.header('access-control-allow-credentials', 'true')
      reply.header('vary', 'Origin')
    }
    done()
  })
}

/** A preflight: any method of ours, and whatever request headers the browser asks to send. */
export const answerPreflight = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
  reply.header('access-control-allow-methods', METHODS)
  const asked = request.headers['access-control-request-headers']
  if (asked !== undefined) {
    reply.header('access-control-allow-headers', asked)
    reply.header('vary', request.headers.origin !== undefined ? 'Origin, Access-Control-Request-Headers' : 'Access-Control-Request-Headers')
  }
  return reply.header('content-type', 'application/json; charset=utf-8').send('{"status":1}')
}
