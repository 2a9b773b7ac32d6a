import type { FastifyPluginAsync } from 'fastify'
import type { EventLog } from '../eventlog/port.js'
import type { ReadStore } from '../readstore/port.js'
import type { Projections } from '../../projections/projection-set.js'

export interface HealthDeps {
  readonly log: EventLog
  readonly store: ReadStore
  /** Present when this process runs the projectors. */
  readonly projections?: Projections
}

/** Quarantined events listed in one answer, at most; the count is always whole. */
const LISTED_QUARANTINE = 20

/**
 * `GET /_health`: 200 and `ok` only while both stores answer and every projection runs, advances
 * when behind, and has skipped nothing; otherwise 503 naming each problem. Each projection reports
 * the commit position it has applied, how far the head is ahead of it, and what it quarantined.
 */
export const healthRoutes: FastifyPluginAsync<HealthDeps> = async (app, { log, store, projections }) => {
  app.get('/_health', async (request, reply) => {
    const problems: string[] = []
    await log.headPosition().catch((error: unknown) => { problems.push('eventLog'); request.log.error({ err: error }, 'event log unavailable') })
    await store.checkpoint('health').catch((error: unknown) => { problems.push('readStore'); request.log.error({ err: error }, 'read store unavailable') })
    const status = problems.length === 0 && projections ? await projections.status() : {}
    for (const [name, s] of Object.entries(status)) {
      if (s.status === 'failed') problems.push(`projection ${name} failed`)
      if (s.stalled) problems.push(`projection ${name} is not advancing (${s.lag} behind)`)
      if (s.quarantined > 0) problems.push(`projection ${name} quarantined ${s.quarantined} event(s)`)
    }
    const quarantined = Object.values(status).some((s) => s.quarantined > 0) ? (await projections!.quarantined()).slice(0, LISTED_QUARANTINE) : []
    return reply.status(problems.length === 0 ? 200 : 503).send({
      status: problems.length === 0 ? 'ok' : 'error',
      eventLog: log.kind,
      readStore: store.kind,
      projections: Object.fromEntries(Object.entries(status).map(([name, s]) => [name, {
        position: s.position, lag: s.lag, status: s.status, version: s.version, quarantined: s.quarantined, stalled: s.stalled,
      }])),
      ...(problems.length > 0 ? { problems } : {}),
      ...(quarantined.length > 0
        ? { quarantine: quarantined.map((q) => ({ projection: q.projection, position: q.position, part: q.part, event_id: q.event_id, event_type: q.event_type, stream_id: q.stream_id, error: q.error })) }
        : {}),
    })
  })
}
