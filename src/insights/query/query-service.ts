import { randomUUID } from 'node:crypto'
import type { JsonObject } from '../../eventlog/port.js'
import { apiTime } from '../../http/timestamps.js'
import { boundedCache } from '../../kernel/bounded-cache.js'
import { DomainError, NotFound } from '../../kernel/errors.js'
import type { Environment } from '../../readstore/environment.js'
import type { ReadModels } from '../../readstore/read-models.js'
import { runQuery } from '../engine/run-query.js'
import { ReadModelsSource, type PersonReads } from '../read/read-models-source.js'
import type { QueryNode } from '../schema/query-node.js'
import { cacheKeyOf } from './cache-key.js'
import { queryEnvironmentOf } from './query-environment.js'
import { cacheTargetAge, isStale, nextAllowedRefresh, type RefreshMode } from './refresh.js'

/** Queries one process computes at once, at most; more are refused with 429 until one ends. */
export const MAX_RUNNING_QUERIES = 4

/** Too many queries are computing in this process. */
export class TooManyQueries extends DomainError {
  override name = 'TooManyQueries'
  constructor() {
    super(429, 'throttled_error', 'throttled', 'Too many queries are running at once. Try again in a moment.')
    this.retryAfter = 1
  }
}

/** A query's answer on the wire: the status code and the body. */
export interface QueryAnswer {
  readonly status: 200 | 202 | 400 | 500
  readonly body: JsonObject
}

/** A computed result, as the cache keeps it. */
interface Computed {
  readonly response: JsonObject
  /** When it was computed (epoch ms). */
  readonly at: number
  readonly interval: string | null
  /** The end of the range it counts, when it has one (epoch ms). */
  readonly rangeEnd: number | null
  readonly rangeMs: number | null
}

/** A query computing in the background (`async` modes), or its outcome while it is kept. */
interface BackgroundRun {
  readonly id: string
  readonly environmentId: number
  readonly cacheKey: string
  readonly abort: AbortController
  readonly startedAt: number
  endedAt: number | null
  error: string | null
  outcome: Computed | null
}

const intervalOf = (node: QueryNode): string | null => {
  if ('interval' in node && typeof node.interval === 'string') return node.interval
  if (node.kind === 'RetentionQuery') return String(node.retentionFilter?.period ?? 'Day').toLowerCase()
  return null
}

/** Whether a query asks for the environment's test-account filters. */
export const usesTestAccounts = (node: QueryNode): boolean => 'filterTestAccounts' in node && node.filterTestAccounts === true

/**
 * Whether a query may read a person property: a person filter, breakdown or math, or the
 * environment's test-account filters. Read from the query's text, so a doubt reads them.
 */
const readsPersonProperties = (node: QueryNode): boolean =>
  usesTestAccounts(node) || /"person"|"person_properties"|person\./.test(JSON.stringify(node))

const personsModeOf = (node: QueryNode): 'at_event' | 'current' | null => {
  if (!readsPersonProperties(node)) return null
  const mode = (node as { modifiers?: { personsOnEventsMode?: unknown } | null }).modifiers?.personsOnEventsMode
  return mode === 'person_id_override_properties_joined' || mode === 'person_id_no_override_properties_joined' ? 'current' : 'at_event'
}

/** What a query reads of persons: lifecycle queries (and their actors) read when each was created. */
export const personReadsOf = (node: QueryNode): PersonReads =>
  ({ properties: personsModeOf(node), createdAt: JSON.stringify(node).includes('"LifecycleQuery"') })

const rangeOf = (response: JsonObject): { end: number | null; length: number | null } => {
  const range = response['resolved_date_range'] as { date_from?: string; date_to?: string } | undefined
  const end = range?.date_to ? Date.parse(range.date_to) : NaN
  const start = range?.date_from ? Date.parse(range.date_from) : NaN
  return { end: Number.isNaN(end) ? null : end, length: Number.isNaN(end) || Number.isNaN(start) ? null : end - start }
}

/**
 * Runs queries for the `/query/` endpoint (and insights): computes them from the read models,
 * keeps results by PostHog's cache key and serves them per the refresh mode, runs background
 * queries for the `async` modes, and caps how many compute at once.
 */
export class QueryService {
  private running = 0
  private readonly cache = boundedCache<string, Computed>({ max: 500 })
  private readonly runs = boundedCache<string, BackgroundRun>({ max: 1000, ttlMs: 30 * 60_000 })

  private readonly maxRunning: number
  private readonly now: () => number

  constructor(private readonly models: ReadModels, options: { readonly maxRunning?: number; readonly now?: () => number } = {}) {
    this.maxRunning = options.maxRunning ?? MAX_RUNNING_QUERIES
    this.now = options.now ?? Date.now
  }

  /** The answer to a query under a refresh mode, computing it when the mode and the cache call for it. */
  async answer(environment: Environment, node: QueryNode, mode: RefreshMode, clientQueryId?: string): Promise<QueryAnswer> {
    const settings = { timezone: environment['timezone'] ?? null, settings: environment['settings'] ?? null }
    const cacheKey = cacheKeyOf(node, environment.id, settings)
    const cached = this.cache.get(cacheKey)
    const now = this.now()
    const stale = cached ? isStale(cached.at, now, cached.interval, cached.rangeEnd, mode === 'lazy_async') : true
    const background = () => this.startBackground(environment, node, cacheKey, clientQueryId)
    switch (mode) {
      case 'force_blocking':
        return this.computedAnswer(await this.compute(environment, node, cacheKey), cacheKey, false)
      case 'force_async':
        return this.pendingAnswer(background(), cacheKey)
      case 'force_cache':
        return cached ? this.computedAnswer(cached, cacheKey, true) : { status: 200, body: { cache_key: cacheKey, query_status: null, result: null, results: null } }
      case 'async':
      case 'lazy_async':
        if (cached && !stale) return this.computedAnswer(cached, cacheKey, true)
        if (cached) {
          background()
          return this.computedAnswer(cached, cacheKey, true)
        }
        return this.pendingAnswer(background(), cacheKey)
      case 'async_except_on_cache_miss':
        if (cached && stale) background()
        return cached ? this.computedAnswer(cached, cacheKey, true) : this.computedAnswer(await this.compute(environment, node, cacheKey), cacheKey, false)
      case 'blocking':
        if (cached && !stale) return this.computedAnswer(cached, cacheKey, true)
        return this.computedAnswer(await this.compute(environment, node, cacheKey), cacheKey, false)
    }
  }

  /** A background query's status: 200 when it is done, 202 while it runs, 400 when it failed. */
  status(environmentId: number, id: string): QueryAnswer {
    const run = this.runs.get(id)
    if (!run || run.environmentId !== environmentId) throw new NotFound(`Query ${id} not found for team`)
    const status = this.statusOf(run)
    return { status: run.error !== null ? 400 : run.endedAt === null ? 202 : 200, body: { query_status: status } }
  }

  /** Stops a background query; a finished one is only forgotten. */
  cancel(environmentId: number, id: string): JsonObject {
    const run = this.runs.get(id)
    if (!run || run.environmentId !== environmentId) throw new NotFound(`Query ${id} not found for team`)
    run.abort.abort()
    this.runs.delete(id)
    return { message: 'Query cancelled' }
  }

  private async compute(environment: Environment, node: QueryNode, cacheKey: string, signal?: AbortSignal): Promise<Computed> {
    if (this.running >= this.maxRunning) throw new TooManyQueries()
    this.running++
    try {
      const queryEnvironment = await queryEnvironmentOf(this.models, environment, usesTestAccounts(node))
      const source = new ReadModelsSource(this.models, environment.id, personReadsOf(node), signal)
      const at = this.now()
      const response = await runQuery(node, { environment: queryEnvironment, now: at }, source) as unknown as JsonObject
      const range = rangeOf(response)
      const computed: Computed = { response, at, interval: intervalOf(node), rangeEnd: range.end, rangeMs: range.length }
      this.cache.set(cacheKey, computed)
      return computed
    } finally {
      this.running--
    }
  }

  private startBackground(environment: Environment, node: QueryNode, cacheKey: string, clientQueryId?: string): BackgroundRun {
    const run: BackgroundRun = {
      id: clientQueryId ?? randomUUID().replaceAll('-', ''), environmentId: environment.id, cacheKey,
      abort: new AbortController(), startedAt: this.now(), endedAt: null, error: null, outcome: null,
    }
    this.runs.set(run.id, run)
    this.compute(environment, node, cacheKey, run.abort.signal).then(
      (outcome) => { run.outcome = outcome },
      (error: unknown) => { run.error = error instanceof DomainError ? error.message : 'The query failed.' },
    ).finally(() => { run.endedAt = this.now() })
    return run
  }

  private statusOf(run: BackgroundRun): JsonObject {
    return {
      id: run.id, query_async: true, team_id: run.environmentId, error: run.error !== null, complete: run.endedAt !== null,
      error_message: run.error, start_time: apiTime(new Date(run.startedAt).toISOString()),
      end_time: run.endedAt === null ? null : apiTime(new Date(run.endedAt).toISOString()),
      ...(run.outcome ? { results: this.envelope(run.outcome, run.cacheKey, false) } : {}),
    }
  }

  private pendingAnswer(run: BackgroundRun, cacheKey: string): QueryAnswer {
    return { status: 202, body: { cache_key: cacheKey, query_status: this.statusOf(run) } }
  }

  private computedAnswer(computed: Computed, cacheKey: string, cached: boolean): QueryAnswer {
    return { status: 200, body: this.envelope(computed, cacheKey, cached) }
  }

  /** A result with PostHog's cache fields. */
  private envelope(computed: Computed, cacheKey: string, cached: boolean): JsonObject {
    const time = (ms: number) => apiTime(new Date(ms).toISOString())
    return {
      ...computed.response,
      is_cached: cached,
      last_refresh: time(computed.at),
      next_allowed_client_refresh: time(nextAllowedRefresh(computed.at, computed.interval, computed.rangeMs)),
      cache_target_age: time(cacheTargetAge(computed.at, computed.interval)),
      cache_key: cacheKey,
      query_status: null,
      error: null,
      hogql: null,
      timings: [],
    }
  }
}

const services = new WeakMap<ReadModels, QueryService>()

/** The one query service of a set of read models: its cache and its cap on running queries are shared by every route. */
export const queryServiceOf = (models: ReadModels): QueryService => {
  let service = services.get(models)
  if (!service) services.set(models, service = new QueryService(models))
  return service
}
