import type { FastifyPluginAsync } from 'fastify'
import { answerPreflight } from './cors.js'
import { useCaptureErrors, useRawBodies } from './routes.js'

/** Snapshot batches can be large; PostHog's recordings endpoint takes up to this much. */
const RECORDING_BODY_LIMIT = 20 * 1024 * 1024

/**
 * `/s/`: session recording snapshots. Recording is always off in the remote config Hedgelog
 * serves, so SDKs should not send any; whatever still arrives (an SDK with a stale config) is
 * read and dropped with the 200 PostHog answers when recording is off for the environment.
 */
export const recordingRoutes: FastifyPluginAsync = async (app) => {
  useRawBodies(app)
  useCaptureErrors(app)
  app.route({
    method: ['GET', 'POST'], url: '/s', bodyLimit: RECORDING_BODY_LIMIT,
    handler: async (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send('{"status":1}'),
  })
  app.options('/s', answerPreflight)
}
