import type { FastifyInstance } from 'fastify'
import { ReadModelsCatchingUp } from '../kernel/errors.js'
import type { Projections } from '../readstore/projections.js'

/** How long a read waits for the read models to catch up before it is refused. */
export const CATCH_UP_WAIT_MS = 2000

/** Routes that answer from read models; ingestion and health never wait. */
const READS = /^\/(api\/|decide|flags|array\/|shared\/)/

/**
 * Reads wait while a read model is still being built from the log (a first start, or a read
 * store rebuilt from nothing), and get a 503 if it takes longer, rather than part of the data.
 */
export const awaitCaughtUpForReads = (app: FastifyInstance, projections: Projections, waitMs = CATCH_UP_WAIT_MS): void => {
  app.addHook('onRequest', (request, _reply, done) => {
    if (projections.allCaughtUp() || !READS.test(request.url)) return done()
    projections.whenCaughtUp(waitMs).then(
      (caughtUp) => done(caughtUp ? undefined : new ReadModelsCatchingUp(projections.catchingUp())),
      done,
    )
  })
}
