import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { hostname } from 'node:os'
import { buildApp, type HttpRole } from './app.js'
import { parseRateLimits } from './auth/rate-limit.js'
import type { Config } from './config.js'
import type { EventLog } from './eventlog/port.js'
import { newUlid } from './kernel/ids.js'
import type { ReadStore } from './readstore/port.js'
import { armCrashPoints } from './kernel/crash-points.js'
import { finishCommandsJob } from './scheduler/finish-commands.js'
import { projectionWatchdog } from './scheduler/projection-watchdog.js'
import { runEverywhere, startScheduler, type Scheduler } from './scheduler/scheduler.js'
import { openStoresLazily, StorageError } from './storage.js'
import { reasonOf, StoreReadiness } from './store-wait.js'
import { NoAnswerInTime, within } from './kernel/within.js'
import { isTransientStoreError } from './kernel/storage-errors.js'
import type { Channels } from './delivery/targets.js'
import { smtpMailer, type Mailer } from './mail/mailer.js'
import { deliveryChannels } from './delivery/channels.js'
import { subscriptionDeliveryJob } from './delivery/delivery-job.js'
import { allProjectors } from './modules.js'
import { ProjectionSet } from '../projections/projection-set.js'
import type { Projections } from './readstore/projections.js'
import { ThreadedProjections } from '../projections/threads/host.js'
import { ReadModels } from './readstore/read-models.js'
import { ProjectionRegistry } from '../projections/registry.js'
import { storedStatus } from '../projections/stored-status.js'

export const ROLES = ['api', 'ingest', 'projector', 'scheduler'] as const
export type Role = (typeof ROLES)[number]

export interface Service {
  readonly log: EventLog
  readonly store: ReadStore
  readonly models: ReadModels
  readonly projections?: Projections
  readonly app?: FastifyInstance
  /** `http://host:port` once listening. */
  readonly address?: string
  /** Settles only when a store that answered late can never serve (a standalone MongoDB): the process should stop. */
  readonly failed: Promise<Error>
  /** Stops accepting requests, lets requests in flight finish, then closes the stores. */
  close(): Promise<void>
}

/**
 * The projector role: in worker threads (the default), so that projection work never delays a
 * request, each thread woken at once by this thread's commits of the event types it reads; or on this thread when
 * HEDGELOG_PROJECTION_THREADS is 0.
 */
const startProjections = (config: Config, log: EventLog, store: ReadStore, registry: ProjectionRegistry, logger: FastifyBaseLogger): Projections => {
  if (config.HEDGELOG_PROJECTION_THREADS > 0) {
    const threaded = new ThreadedProjections({
      config, projectors: allProjectors, threads: config.HEDGELOG_PROJECTION_THREADS,
      log: (level, fields, message) => logger[level](fields, message),
    })
    ;(log as { onCommit?: (listener: (types?: ReadonlySet<string>) => void) => void }).onCommit?.((types) => threaded.wake(types))
    return threaded
  }
  return new ProjectionSet({
    log, store, registry, projectors: allProjectors,
    partitions: config.HEDGELOG_PROJECTION_PARTITIONS, partitionLeaseMs: config.HEDGELOG_PROJECTION_LEASE_MS,
    onError: (projection, error, fatal) => fatal
      ? logger.error({ projection, err: error }, 'projection stopped')
      : logger.warn({ projection, err: error }, 'projection failed to advance; retrying'),
    onQuarantine: (projection, record) => logger.error({ projection, quarantined: record }, 'event quarantined: the projection skipped it'),
    onProgress: (projection, position, head) => logger.info({ projection, position, head }, 'projection catching up with the event log'),
  })
}

/** How a scheduled job's failure is logged: a store that is down in a line without a stack, at most once a minute per job. */
const jobFailures = (logger: FastifyBaseLogger): ((job: string, error: unknown) => void) => {
  const toldAt = new Map<string, number>()
  return (job, error) => {
    if (!isTransientStoreError(error)) return logger.error({ job, err: error }, 'scheduled job failed')
    if (Date.now() - (toldAt.get(job) ?? -Infinity) < 60_000) return
    toldAt.set(job, Date.now())
    logger.warn({ job, reason: reasonOf(error) }, 'scheduled job could not reach a store; it runs again at its next turn')
  }
}

interface WorkDeps {
  readonly log: EventLog
  readonly store: ReadStore
  readonly models: ReadModels
  readonly registry: ProjectionRegistry
  readonly projections: Projections | undefined
  readonly delivery: { readonly channels: Channels; readonly publicUrl: string }
}

/** The background work of the requested roles: projections, the scheduler's jobs, the finisher of commands. */
const startWork = async (
  config: Config, roles: readonly Role[], logger: FastifyBaseLogger,
  { log, store, models, registry, projections, delivery }: WorkDeps,
): Promise<{ stop(): Promise<void> }> => {
  await projections?.start()
  const onError = jobFailures(logger)
  let scheduler: Scheduler | undefined
  if (roles.includes('scheduler')) {
    const owner = `${hostname()}/${process.pid}/${newUlid()}`
    scheduler = startScheduler({
      store,
      owner,
      jobs: [
        projectionWatchdog({ status: () => storedStatus(log, store, registry, allProjectors), warn: (stalled) => logger.warn(stalled, 'projection is not advancing') }),
        subscriptionDeliveryJob({ log, models, ...delivery, owner, clock: () => new Date() }),
      ],
      onError,
    })
  }
  // Commands left half done by a process that died are finished by every API process, at once
  // and then every second: it is safe to run anywhere, and must not wait for a dead holder's lease.
  const finisher = roles.includes('api') ? runEverywhere(finishCommandsJob({ log, models }), onError) : undefined
  return {
    async stop() {
      await scheduler?.stop()
      await finisher?.stop()
    },
  }
}

/**
 * Opens the stores and starts the requested roles of one process. When EventStoreDB or MongoDB
 * does not answer at once, the process listens anyway, says in one line what it waits for,
 * answers 503 to what needs a store, and starts its projections and jobs once every store has
 * answered. `failed` settles only if a store that answered can never serve (a standalone MongoDB).
 */
export const startService = async (config: Config, roles: readonly Role[], logger: FastifyBaseLogger): Promise<Service> => {
  armCrashPoints(config.HEDGELOG_CRASH_POINTS.split(',').filter((name) => name !== ''))
  const { log, store, probes } = await openStoresLazily(config, {
    commitThread: true,
    // With projections on their own threads, this thread only reads the read store and renews
    // leases; a lease write must not block requests behind a projection's commit, nor copy the
    // projections' WAL back into the file (the threads that write it do).
    ...(roles.includes('projector') && config.HEDGELOG_PROJECTION_THREADS > 0 ? { readStoreBusyTimeoutMs: 20, readStoreCopiesWal: false } : {}),
    onReadStoreMovedAside: (path, movedTo, reason) =>
      logger.warn({ path, movedTo, reason }, 'the read store could not be read; it was moved aside and every read model is rebuilt from the event log'),
  })
  let closing = false
  const readiness = new StoreReadiness(probes)
  const answered = readiness.wait({
    probeTimeoutMs: config.HEDGELOG_HEALTH_PROBE_TIMEOUT_MS,
    onWaiting: (what, reason) => logger.warn({ reason }, `waiting for ${what} to answer: requests that need it are answered 503 until it does`),
    stopped: () => closing,
  })
  // Stores that answer at once start the roles before the process listens, as they always have.
  const atOnce = await within(config.HEDGELOG_HEALTH_PROBE_TIMEOUT_MS + 100, answered).catch((error: unknown) => {
    if (error instanceof NoAnswerInTime) return false
    throw error instanceof Error && error.name === 'NotAReplicaSet' ? new StorageError(error.message) : error
  })
  const registry = new ProjectionRegistry(store)
  const projections = roles.includes('projector') ? startProjections(config, log, store, registry, logger) : undefined
  const models = new ReadModels({ store, registry, projectors: allProjectors, ...(projections ? { projections } : {}) })
  const mailer: Mailer | undefined = config.HEDGELOG_SMTP_URL ? smtpMailer(config.HEDGELOG_SMTP_URL, config.HEDGELOG_SMTP_FROM) : undefined
  const delivery = {
    channels: deliveryChannels({
      mailer, allowPrivate: config.HEDGELOG_DELIVERY_ALLOW_PRIVATE === '1', timeoutMs: config.HEDGELOG_DELIVERY_TIMEOUT_MS,
      log: (fields, message) => logger.warn(fields, message),
      ...(config.HEDGELOG_SLACK_BOT_TOKEN ? { slackBot: { token: config.HEDGELOG_SLACK_BOT_TOKEN, apiUrl: config.HEDGELOG_SLACK_API_URL } } : {}),
    }),
    publicUrl: config.HEDGELOG_PUBLIC_URL,
  }
  const deps: WorkDeps = { log, store, models, registry, projections, delivery }
  let work = atOnce ? await startWork(config, roles, logger, deps) : undefined

  const httpRoles = roles.filter((role): role is HttpRole => role === 'api' || role === 'ingest')
  let app: FastifyInstance | undefined
  let address: string | undefined
  if (httpRoles.length > 0) {
    app = await buildApp({
      log, store, models, roles: httpRoles, logger, delivery, ...(mailer ? { mailer } : {}), rateLimits: parseRateLimits(config.HEDGELOG_RATE_LIMITS)!,
      authFailureLimits: parseRateLimits(config.HEDGELOG_AUTH_FAILURE_LIMITS)!, connectionsPerAddress: config.HEDGELOG_CONNECTIONS_PER_ADDRESS,
      trustedProxies: config.HEDGELOG_TRUSTED_PROXIES, ...(projections ? { projections } : {}), keepInsightsLive: config.HEDGELOG_LIVE_INSIGHTS === '1',
      liveInsightsMaxEntries: config.HEDGELOG_LIVE_INSIGHTS_MAX_ENTRIES, liveInsightsRescanMs: config.HEDGELOG_LIVE_INSIGHTS_RESCAN_MS,
      admission: {
        loopDelayMs: config.HEDGELOG_ADMIT_LOOP_DELAY_MS, decideLoopDelayMs: config.HEDGELOG_ADMIT_DECIDE_LOOP_DELAY_MS, commitWaitMs: config.HEDGELOG_ADMIT_COMMIT_WAIT_MS,
        projectionLagSeconds: config.HEDGELOG_ADMIT_PROJECTION_LAG_S, ingestInFlight: config.HEDGELOG_ADMIT_INGEST_IN_FLIGHT, retryAfterSeconds: config.HEDGELOG_ADMIT_RETRY_AFTER_S,
      },
      storeWaits: readiness, healthProbeTimeoutMs: config.HEDGELOG_HEALTH_PROBE_TIMEOUT_MS,
    })
    address = await app.listen({ host: config.HOST, port: config.PORT })
  }

  const failed = atOnce ? new Promise<Error>(() => undefined) : answered.then(async (ready) => {
    if (!ready || closing) return new Promise<Error>(() => undefined)
    logger.info('every store answers: starting projections and jobs')
    work = await startWork(config, roles, logger, deps)
    if (closing) await work.stop()
    return new Promise<Error>(() => undefined)
  }, (error: unknown) => (error instanceof Error ? error : new Error(String(error))))

  return {
    log, store, models, failed, ...(projections ? { projections } : {}), ...(app ? { app } : {}), ...(address ? { address } : {}),
    async close() {
      closing = true
      await app?.close()
      await work?.stop()
      mailer?.close()
      await projections?.stop()
      await log.close()
      await store.close()
    },
  }
}
