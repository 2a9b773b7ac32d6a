import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { EventLog, Position } from '../eventlog/port.js'
import { lagBehind } from '../readstore/names.js'
import type { ReadStore } from '../readstore/port.js'
import type { Projections, ProjectionStatus } from '../readstore/projections.js'
import type { StoreFaults } from './store-faults.js'
import type { StoreWaits } from './store-gate.js'
import { within } from '../kernel/within.js'

export interface HealthDeps {
  readonly log: EventLog
  readonly store: ReadStore
  /** Present when this process runs the projectors. */
  readonly projections?: Projections
  /** Storage failures that requests met. */
  readonly faults?: StoreFaults
  /** The stores this process still waits for since it started; none when not given. */
  readonly waits?: StoreWaits
  /** How long each store may take to answer health's probe (default 500 ms), so health answers within a second. */
  readonly probeTimeoutMs?: number
}

/** Default of `probeTimeoutMs`. */
export const PROBE_TIMEOUT_MS = 500

/** Quarantined events listed in one answer, at most; the count is always whole. */
const LISTED_QUARANTINE = 20

/** How far a catching-up projection has got, in per cent of the log's head. */
const progress = (s: ProjectionStatus): number => {
  const head = Number(s.head ?? 0)
  const position = Number(s.position ?? 0)
  return head <= 0 ? 100 : Math.min(100, Math.floor((position / head) * 1000) / 10)
}

/** How old the oldest event a projection has not applied may be before health reports it. */
export const MAX_BEHIND_SECONDS = 10

/** Lag and head as of `head`, which was read after the statuses were taken. */
const withHead = (status: Record<string, ProjectionStatus>, head: Position | null): Record<string, ProjectionStatus> =>
  Object.fromEntries(Object.entries(status).map(([name, s]) => [name, {
    ...s, head: head ? head.commit.toString() : null, lag: lagBehind(head, s.position === null ? null : { commit: BigInt(s.position), prepare: BigInt(s.position) }),
  }]))

/** Age in whole seconds of the first event after `position`: how far behind a projection is in time. */
export const secondsBehind = async (log: EventLog, position: string | null): Promise<number> => {
  const from = position === null ? 'start' as const : { commit: BigInt(position), prepare: BigInt(position) }
  if (log.createdAfter) {
    const created = await log.createdAfter(from === 'start' ? null : from)
    return created === null ? 0 : Math.max(0, Math.floor((Date.now() - created.getTime()) / 1000))
  }
  for await (const event of log.readAll({ fromPosition: from, maxCount: 2 })) {
    if (position !== null && event.position.commit === BigInt(position)) continue
    return Math.max(0, Math.floor((Date.now() - event.created.getTime()) / 1000))
  }
  return 0
}

/** What is wrong with one projection, in words; empty when nothing is. */
export const projectionProblems = (name: string, s: ProjectionStatus): string[] => {
  const problems: string[] = []
  if (s.status === 'failed') problems.push(`projection ${name} failed`)
  else if (s.status !== 'live') problems.push(`projection ${name} is rebuilding from the event log: ${progress(s)}% (position ${s.position ?? 'none'} of ${s.head ?? 'none'})`)
  if (s.error !== null) problems.push(`projection ${name} cannot advance: ${s.error}`)
  if (s.stalled) problems.push(`projection ${name} is not advancing (${s.lag} behind)`)
  if (s.quarantined > 0) problems.push(`projection ${name} quarantined ${s.quarantined} event(s)`)
  return problems
}

/**
 * `GET /_health`: 200 and `ok` only while both stores answer, no request has met a storage
 * failure lately, and every projection is live, advancing when behind, and has skipped nothing;
 * otherwise 503 naming each problem. Each projection reports the commit position it has applied,
 * how far the head is ahead of it, and what it quarantined; a rebuilding one its progress.
 */
export const healthRoutes: FastifyPluginAsync<HealthDeps> = async (app, { log, store, projections, faults, waits, probeTimeoutMs = PROBE_TIMEOUT_MS }) => {
  /** The store's failure in one line, or null when it answered in time; logged without a stack, since it says all there is. */
  const probe = (name: string, work: Promise<unknown>, request: FastifyRequest): Promise<string | null> => within(probeTimeoutMs, work).then(
    () => null,
    (error: unknown) => {
      const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error)
      request.log.warn({ reason }, `${name} unavailable`)
      return reason
    },
  )

  app.get('/_health', async (request, reply) => {
    const waiting = waits?.missing() ?? []
    if (waiting.length > 0) {
      return reply.status(503).send({
        status: 'error', eventLog: log.kind, readStore: store.kind, projections: {}, problems: waiting.map((what) => `waiting for ${what}: it has not answered since the start`),
      })
    }
    const problems: string[] = []
    const [logFailure, storeFailure] = await Promise.all([probe('event log', log.headPosition(), request), probe('read store', store.checkpoint('health'), request)])
    if (logFailure !== null) problems.push('eventLog')
    if (storeFailure !== null) problems.push('readStore')
    const fault = faults?.recent()
    if (fault) problems.push(`storage failed ${fault.secondsAgo} s ago: ${fault.message}`)
    // Both stores answered within the probe's time; what follows reads them again, under the same bound.
    const details = problems.length === 0 && projections
      ? await within(probeTimeoutMs, projectionDetails(log, projections)).catch((error: unknown) => {
        problems.push(`projection status did not answer in time: ${error instanceof Error ? error.message : String(error)}`)
        return null
      })
      : null
    const status = details?.status ?? {}
    problems.push(...(details?.problems ?? []))
    const rebuilding = Object.entries(status).filter(([, s]) => s.status === 'starting' || s.status === 'catching_up')
    const quarantined = Object.values(status).some((s) => s.quarantined > 0)
      ? (await within(probeTimeoutMs, projections!.quarantined()).catch(() => [])).slice(0, LISTED_QUARANTINE)
      : []
    return reply.status(problems.length === 0 ? 200 : 503).send({
      status: problems.length === 0 ? 'ok' : problems.length === rebuilding.length ? 'rebuilding' : 'error',
      eventLog: log.kind,
      readStore: store.kind,
      projections: Object.fromEntries(Object.entries(status).map(([name, s]) => [name, {
        position: s.position, lag: s.lag, status: s.status, version: s.version, quarantined: s.quarantined, stalled: s.stalled, error: s.error,
      }])),
      ...(problems.length > 0 ? { problems } : {}),
      ...(rebuilding.length > 0 ? { rebuilding: Object.fromEntries(rebuilding.map(([name, s]) => [name, { position: s.position, head: s.head, progress: progress(s) }])) } : {}),
      ...(quarantined.length > 0
        ? { quarantine: quarantined.map((q) => ({ projection: q.projection, position: q.position, part: q.part, event_id: q.event_id, event_type: q.event_type, stream_id: q.stream_id, error: q.error })) }
        : {}),
    })
  })
}

/** Each projection's status as of the log's head, and what is wrong with each. */
const projectionDetails = async (log: EventLog, projections: Projections): Promise<{ status: Record<string, ProjectionStatus>; problems: string[] }> => {
  const head = await log.headPosition().catch(() => null)
  const status = withHead(await projections.status(), head)
  const problems: string[] = []
  for (const [name, s] of Object.entries(status)) {
    // A projection still catching up is reported as rebuilding, with its progress, not as behind.
    const behind = s.lag > 0 && s.status === 'live' ? await secondsBehind(log, s.position).catch(() => 0) : 0
    if (behind > MAX_BEHIND_SECONDS) problems.push(`projection ${name} is ${behind} s behind the event log`)
  }
  for (const [name, s] of Object.entries(status)) problems.push(...projectionProblems(name, s))
  return { status, problems }
}
