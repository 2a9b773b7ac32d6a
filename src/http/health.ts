import type { FastifyPluginAsync } from 'fastify'
import type { EventLog } from '../eventlog/port.js'
import type { ReadStore } from '../readstore/port.js'
import type { ProjectionSet } from '../../projections/projection-set.js'

export interface HealthDeps {
  readonly log: EventLog
  readonly store: ReadStore
  /** Present when this process runs the projectors. */
  readonly projections?: ProjectionSet
}

/**
 * `GET /_health`: 200 while both stores answer and no projection has failed, else 503. Each
 * projection reports the commit position it has applied and how far the head is ahead of it.
 */
export const healthRoutes: FastifyPluginAsync<HealthDeps> = async (app, { log, store, projections }) => {
  app.get('/_health', async (request, reply) => {
    const problems: string[] = []
    await log.headPosition().catch((error: unknown) => { problems.push('eventLog'); request.log.error({ err: error }, 'event log unavailable') })
    await store.checkpoint('health').catch((error: unknown) => { problems.push('readStore'); request.log.error({ err: error }, 'read store unavailable') })
    const status = problems.length === 0 && projections ? await projections.status() : {}
    const failed = Object.entries(status).filter(([, s]) => s.status === 'failed').map(([name]) => `projection ${name}`)
    problems.push(...failed)
    return reply.status(problems.length === 0 ? 200 : 503).send({
      status: problems.length === 0 ? 'ok' : 'error',
      eventLog: log.kind,
      readStore: store.kind,
      projections: Object.fromEntries(Object.entries(status).map(([name, s]) => [name, { position: s.position, lag: s.lag, status: s.status, version: s.version }])),
      ...(problems.length > 0 ? { problems } : {}),
    })
  })
}
