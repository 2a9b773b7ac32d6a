import underPressure from '@fastify/under-pressure'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { EventLog } from '../eventlog/port.js'
import { Overloaded } from '../kernel/errors.js'
import type { Projections } from '../readstore/projections.js'
import { secondsBehind } from './health.js'
import { meterLoopDelay } from './loop-delay.js'

/** When a request is refused for load rather than served late. Each bound is off at 0. */
export interface AdmissionBounds {
  /** Mean delay of the event loop over the last quarter second, in ms, past which reads and writes are refused. */
  readonly loopDelayMs: number
  /** The same for `/decide` and `/flags`, which keep a budget of their own. */
  readonly decideLoopDelayMs: number
  /** How long the oldest append of this process may have waited for its durable commit before writes are refused. */
  readonly commitWaitMs: number
  /** How far, in seconds of events, the slowest live projection may fall behind before ingestion is refused. */
  readonly projectionLagSeconds: number
  /**
   * How many ingestion requests may be in the process at once (admitted, not yet answered); past
   * it, new ones are refused. Whatever the machine, an accepted request then waits behind at most
   * this many others: about this number divided by the rate the process sustains.
   */
  readonly ingestInFlight: number
  /** What `Retry-After` tells a refused client, in seconds. */
  readonly retryAfterSeconds: number
}

export const DEFAULT_ADMISSION: AdmissionBounds = {
  loopDelayMs: 250, decideLoopDelayMs: 1000, commitWaitMs: 1000, projectionLagSeconds: 60, ingestInFlight: 256, retryAfterSeconds: 2,
}

/** How often the loop delay is sampled and the write-path signals are read. */
const SAMPLE_MS = 250
/** How often the projections' lag is read: it costs a read of the log per projection. */
const LAG_EVERY_MS = 1000

/**
 * The appends of one process, with when each began: the age of the oldest still waiting for its
 * durable commit tells a commit queue that no longer keeps up, whatever the store.
 */
export class AppendWatch {
  private readonly waiting = new Map<number, number>()
  private next = 0

  /** `log` with its appends timed; everything else is the log's own. */
  watched(log: EventLog): EventLog {
    const bound = new Map<PropertyKey, unknown>()
    const append: EventLog['append'] = (stream, events, options) => {
      const id = this.next++
      this.waiting.set(id, performance.now())
      const done = () => { this.waiting.delete(id) }
      const appended = log.append(stream, events, options)
      appended.then(done, done)
      return appended
    }
    return new Proxy(log, {
      get(target, key) {
        if (key === 'append') return append
        const value = Reflect.get(target, key, target) as unknown
        if (typeof value !== 'function') return value
        let method = bound.get(key)
        if (method === undefined) bound.set(key, method = (value as (...args: unknown[]) => unknown).bind(target))
        return method
      },
    })
  }

  /** How long the oldest append still waiting has waited, in ms; 0 when none waits. */
  oldestWaitMs(now = performance.now()): number {
    for (const began of this.waiting.values()) return now - began
    return 0
  }
}

/** The largest lag, in seconds, of the projections that are live (those rebuilding are not serving). */
const slowestLiveSeconds = async (log: EventLog, projections: Projections): Promise<number> => {
  let slowest = 0
  for (const status of Object.values(await projections.status())) {
    if (status.status !== 'live' || status.lag <= 0) continue
    slowest = Math.max(slowest, await secondsBehind(log, status.position))
  }
  return slowest
}

type RouteClass = 'exempt' | 'decide' | 'read' | 'write' | 'ingest'

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

const classOf = (request: FastifyRequest): RouteClass => {
  const { url, method } = request
  if (method === 'OPTIONS' || url.startsWith('/_health')) return 'exempt'
  if (url.startsWith('/decide') || url.startsWith('/flags')) return 'decide'
  if (!WRITES.has(method)) return 'read'
  return url.startsWith('/api/') ? 'write' : 'ingest'
}

export interface AdmissionSignals {
  readonly log: EventLog
  readonly appends: AppendWatch
  readonly projections?: Projections
}

/**
 * Admission control: past a bound, a new request is answered 503 with `Retry-After` (in its
 * route's error shape) before its body is read, instead of joining a queue that would answer it
 * late, or after the client's timeout. A busy event loop refuses reads and writes; a commit queue
 * that no longer keeps up refuses writes; projections too far behind refuse ingestion.
 * `/_health` is never refused, and `/decide` only past a loop delay of its own. The signals are
 * read four times a second; between two readings, requests pass without a look. Ingestion is
 * also bounded by a count of its requests in the process, which answers at once, without waiting
 * for a reading: a queue that grows between two readings is what the accepted requests wait in.
 */
export const useAdmission = async (app: FastifyInstance, signals: AdmissionSignals, bounds: AdmissionBounds): Promise<void> => {
  let lagSeconds = 0
  let lagReadAt = -Infinity
  let lagReading: Promise<void> | null = null
  const readLag = (): void => {
    if (!signals.projections || bounds.projectionLagSeconds <= 0 || lagReading || performance.now() - lagReadAt < LAG_EVERY_MS) return
    lagReading = slowestLiveSeconds(signals.log, signals.projections)
      .then((seconds) => { lagSeconds = seconds }, () => { lagSeconds = 0 })
      .finally(() => { lagReading = null; lagReadAt = performance.now() })
  }
  // A loop counts as busy after two samples in a row over the bound: one late timer (a collection,
  // a process starved of the CPU for a moment) refuses nothing.
  let overLoop = 0
  let overDecideLoop = 0
  const loop = meterLoopDelay()
  app.addHook('onClose', async () => { loop.stop() })
  const commitBehind = (): boolean => bounds.commitWaitMs > 0 && signals.appends.oldestWaitMs() > bounds.commitWaitMs
  const lagBehind = (): boolean => bounds.projectionLagSeconds > 0 && lagSeconds > bounds.projectionLagSeconds
  const busy = (): boolean => bounds.loopDelayMs > 0 && overLoop >= 2
  const decideBusy = (): boolean => bounds.decideLoopDelayMs > 0 && overDecideLoop >= 2

  /** Whether a request of this class is refused now. */
  const refused = (kind: RouteClass): boolean => {
    switch (kind) {
      case 'exempt': return false
      case 'decide': return decideBusy()
      case 'read': return busy()
      case 'write': return busy() || commitBehind()
      case 'ingest': return busy() || commitBehind() || lagBehind()
    }
  }

  await app.register(underPressure, {
    sampleInterval: SAMPLE_MS,
    healthCheckInterval: SAMPLE_MS,
    healthCheck: async () => {
      const delay = loop.meter.read()
      overLoop = delay > bounds.loopDelayMs ? overLoop + 1 : 0
      overDecideLoop = delay > bounds.decideLoopDelayMs ? overDecideLoop + 1 : 0
      readLag()
      return !busy() && !commitBehind() && !lagBehind()
    },
    pressureHandler: (request, reply) => {
      if (!refused(classOf(request))) return undefined
      void reply.header('retry-after', String(bounds.retryAfterSeconds))
      return Promise.reject(new Overloaded(bounds.retryAfterSeconds))
    },
  })
  if (bounds.ingestInFlight > 0) boundIngestInFlight(app, bounds)
}

/**
 * Counts the ingestion requests in the process from their arrival to the end of their answer (or
 * of their connection) and refuses those that would go past the bound. Runs after the signals'
 * check, so a request refused there is not counted.
 */
const boundIngestInFlight = (app: FastifyInstance, bounds: AdmissionBounds): void => {
  let inFlight = 0
  const leave = (): void => { inFlight-- }
  app.addHook('onRequest', (request, reply, done) => {
    if (!WRITES.has(request.method) || classOf(request) !== 'ingest') return done()
    if (inFlight >= bounds.ingestInFlight) {
      void reply.header('retry-after', String(bounds.retryAfterSeconds))
      return done(new Overloaded(bounds.retryAfterSeconds))
    }
    inFlight++
    reply.raw.once('close', leave)
    done()
  })
}
