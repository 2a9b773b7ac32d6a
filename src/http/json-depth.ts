import type { FastifyInstance } from 'fastify'
import { ValidationFailed } from '../kernel/errors.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../kernel/json-depth.js'

/**
 * Refuses a parsed body nested deeper than `MAX_JSON_DEPTH`, before schemas (whose recursion a
 * deep enough value would overflow) and before anything is stored, with DRF's parse error.
 * Ingestion bodies arrive as raw bytes and are bounded by their own decoder.
 */
export const boundJsonDepth = (app: FastifyInstance): void => {
  app.addHook('preValidation', (request, _reply, done) => {
    const { body } = request
    if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      return done(new ValidationFailed(`JSON parse error - nested deeper than ${MAX_JSON_DEPTH} levels`, null, 'parse_error'))
    }
    done()
  })
}
