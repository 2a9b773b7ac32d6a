import type { JsonObject, Subscription } from '../../eventlog/port.js'
import { CHANGE_COMMITTED } from '../../kernel/change-parts.js'
import { DASHBOARD_EVENT_TYPES } from '../../dashboards/events.js'
import { SUBSCRIPTION_EVENT_TYPES } from '../../subscriptions/events.js'
import { INSIGHT_EVENT_TYPES } from '../events.js'
import { deepFreeze } from '../../kernel/deep-freeze.js'
import type { Environment } from '../../readstore/environment.js'
import type { ReadModels } from '../../readstore/read-models.js'
import { cacheKeyOf } from '../query/cache-key.js'
import { queryEnvironmentOf } from '../query/query-environment.js'
import type { QueryNode } from '../schema/query-node.js'
import type { QueryEnvironment } from '../engine/data.js'
import { Generation, type Build, type GenerationDeps, type LiveDefinition } from './generation.js'
import { liveQueryOf } from './live-kinds.js'
import { keptLive } from './kept-live.js'
import { sourceOf } from '../query/insight-results.js'

/** A live query's answer as reads serve it. */
export interface LiveAnswer {
  readonly response: JsonObject
  /** When the newest log event the answer includes was written (epoch ms), null when it includes none. */
  readonly lastEventAt: number | null
}

/** How far the build of a query that is not live yet has come. */
export interface LiveProgress {
  readonly rowsRead: number
  readonly startedAt: number
}

/** A new generation starts this long after the last query asked to be live, so that a dashboard's tiles start together. */
const GATHER_MS = 1000
/** An answer is computed again at most this often while events keep coming; reads in between get the last one. */
const RECOMPUTE_MS = 100
const MINUTE = 60_000
/** A query kept by no saved insight, dashboard or subscription, and not asked for within this long, is left out of the next generation. */
const FORGET_AFTER_MS = 7 * 24 * 3_600_000
/** How often the queries that saved insights, dashboards and subscriptions keep are looked for again, by default. */
export const RESCAN_MS = 10_000
/** How long after a change to an insight, a dashboard or a subscription they are looked for again (their read models catch up meanwhile). */
const CHANGE_SETTLE_MS = 300
/** What changes the queries kept live. */
const KEEPING_EVENTS = [...INSIGHT_EVENT_TYPES, ...DASHBOARD_EVENT_TYPES, ...SUBSCRIPTION_EVENT_TYPES, CHANGE_COMMITTED]
/** How long the start waits, at a time, for the read models to catch up before it looks for the queries to keep live. */
const START_WAIT_MS = 60_000
/** The wait before a generation that failed, or a watch of changes that failed, is started again: doubling from 1 s to 30 s. */
const retryDelay = (failures: number): number => Math.min(30_000, 1000 * 2 ** Math.min(failures, 5))

interface Answered {
  readonly changes: number
  readonly minute: number
  readonly at: number
  readonly answer: LiveAnswer
}

/** The settings of an environment a query's cache key includes, as the query service keys its results. */
export const settingsOf = (environment: Environment) => ({ timezone: environment['timezone'] ?? null, settings: environment['settings'] ?? null })

/** Keys already made, by query node and environment document (both kept unchanged while they live). */
const keys = new WeakMap<QueryNode, WeakMap<Environment, string>>()

/** A query's cache key in an environment (`cacheKeyOf`), made once per node and environment document. */
export const liveKeyOf = (node: QueryNode, environment: Environment): string => {
  let byEnvironment = keys.get(node)
  if (byEnvironment === undefined) keys.set(node, byEnvironment = new WeakMap())
  let key = byEnvironment.get(environment)
  if (key === undefined) byEnvironment.set(environment, key = cacheKeyOf(node, environment.id, settingsOf(environment)))
  return key
}

/** The queries saved insights, dashboards and subscriptions keep (`keptLive`), by cache key; a query that cannot be read is left out. */
export const keptQueries = async (models: ReadModels): Promise<Map<string, { readonly environment: Environment; readonly node: QueryNode }>> => {
  const kept = new Map<string, { environment: Environment; node: QueryNode }>()
  for (const { environment, query } of await keptLive(models)) {
    let node: QueryNode | null
    try {
      node = sourceOf(query)
    } catch {
      continue
    }
    if (node !== null) kept.set(liveKeyOf(node, environment), { environment, node })
  }
  return kept
}

/**
 * Saved queries answered live. A query read for the first time is added to the wanted ones; the
 * wanted ones are built together by a generation replaying the log, beside the generation that
 * serves, which the new one replaces once it has caught up (as rebuilds do). Until then reads get
 * the engine's answer, and the build's progress.
 */
export class LiveInsights {
  private readonly wanted = new Map<string, LiveDefinition>()
  /** The queries saved insights, dashboards and subscriptions keep, as last looked for. */
  private kept = new Set<string>()
  /** When each wanted query that none of them keeps was last asked for. */
  private readonly asked = new Map<string, number>()
  private rescan: NodeJS.Timeout | null = null
  private changed: NodeJS.Timeout | null = null
  private changes: Subscription | null = null
  private scanning = false
  /** Whether something changed while a scan ran: it runs again once done. */
  private scanAgain = false
  private serving: Generation | null = null
  private building: Generation | null = null
  private gather: NodeJS.Timeout | null = null
  private readonly answered = new Map<string, Answered>()
  private stopped = false
  /** Generations that failed in a row, for the wait before the next. */
  private failures = 0
  /** Why the queries to keep live could not be found at the start, if they could not. */
  private startFailure: string | null = null

  constructor(
    private readonly deps: GenerationDeps,
    private readonly now: () => number = Date.now,
    private readonly rescanMs = RESCAN_MS,
  ) {}

  /**
   * Once the read models have caught up, wants every query a saved insight, a dashboard's tile or
   * a subscription keeps (`keptLive`), so they are built together before anyone asks; then looks
   * for them again every `rescanMs`.
   */
  async start(): Promise<void> {
    try {
      while (!this.stopped && !(await this.deps.projections.whenCaughtUp(START_WAIT_MS)));
      if (this.stopped) return
      await this.reconsider()
    } catch (error) {
      // Queries are still kept live as they are asked for; the status says why none were at the start.
      this.startFailure = error instanceof Error ? error.message : String(error)
    }
    if (this.stopped) return
    this.rescan = setInterval(() => void this.reconsider().catch(() => undefined), this.rescanMs)
    this.rescan.unref()
    void this.followChanges().catch(() => undefined)
  }

  /**
   * Looks again soon after each change to an insight, a dashboard or a subscription, besides every
   * `rescanMs`. A watch that fails (the log unreachable) is started again after a wait.
   */
  private async followChanges(): Promise<void> {
    for (let failures = 0; !this.stopped; failures++) {
      try {
        await this.watchChanges()
        return
      } catch {
        await new Promise((resolve) => setTimeout(resolve, retryDelay(failures)).unref())
      }
    }
  }

  private async watchChanges(): Promise<void> {
    this.changes = this.deps.log.subscribeToAll({ fromPosition: 'end', filter: { eventTypes: KEEPING_EVENTS } })
    for await (const item of this.changes) {
      if (this.stopped) return
      if (item.kind !== 'event' || this.changed !== null) continue
      this.changed = setTimeout(() => {
        this.changed = null
        void this.reconsider().catch(() => undefined)
      }, CHANGE_SETTLE_MS)
      this.changed.unref()
    }
  }

  /**
   * Looks for the queries saved insights, dashboards and subscriptions keep: each is wanted, and a
   * query none of them keeps any more (its insight deleted or its query edited, its tile removed),
   * and that was not asked for on its own, is let go at once, its state with it.
   */
  async reconsider(): Promise<void> {
    if (this.stopped) return
    if (this.scanning) {
      this.scanAgain = true
      return
    }
    this.scanning = true
    try {
      const kept = await keptQueries(this.deps.models)
      this.kept = new Set(kept.keys())
      for (const [key, { environment, node }] of kept) {
        this.asked.delete(key)
        await this.want(key, environment, node)
      }
      for (const key of [...this.wanted.keys()]) if (!this.kept.has(key) && !this.asked.has(key)) this.release(key)
    } finally {
      this.scanning = false
    }
    if (this.scanAgain) {
      this.scanAgain = false
      await this.reconsider()
    }
  }

  private release(key: string): void {
    this.wanted.delete(key)
    this.answered.delete(key)
    this.serving?.drop(key)
    this.building?.drop(key)
  }

  /**
   * The live answer of a query at this moment, or null when it has none yet (it is then wanted,
   * and built), when its kind cannot be live, or when the moment's range cuts what it keeps whole.
   */
  async answer(environment: Environment, node: QueryNode, key = liveKeyOf(node, environment)): Promise<LiveAnswer | null> {
    if (this.stopped) return null
    const build = this.serving?.caughtUp ? this.serving.builds.get(key) : undefined
    if (build === undefined || build.stale || build.tooLarge) {
      await this.want(key, environment, node)
      return null
    }
    return this.answerOf(key, build)
  }

  /** The progress of a wanted query's build, while it is not served. */
  progress(environment: Environment, node: QueryNode, key = liveKeyOf(node, environment)): LiveProgress | null {
    const building = this.building
    if (building === null || !building.builds.has(key)) return null
    return { rowsRead: building.applied, startedAt: building.startedAt }
  }

  /**
   * What the live queries of one environment hold, and what the process's generations cost: for
   * each served query its kind, its state's size and the time of its newest event; for each
   * generation the events it applied and the time it took per event to update its queries.
   */
  status(environmentId: number): JsonObject {
    const generation = (one: Generation | null) => one === null ? null : {
      queries: one.builds.size,
      events: one.applied,
      caught_up: one.caughtUp,
      position: one.position === null ? null : one.position.commit.toString(),
      update_us_per_event: one.applied === 0 ? 0 : Math.round(Number(one.updateNs / 100n) / one.applied) / 10,
      entries: one.entries,
      failure: one.failure,
    }
    const queries = [...(this.serving?.builds.values() ?? [])].filter((build) => build.definition.environmentId === environmentId).map((build) => ({
      cache_key: build.definition.key,
      kind: build.definition.node.kind,
      size: build.live.size(),
      stale: build.stale,
      too_large: build.tooLarge,
      last_event_at: build.lastEventAt === null ? null : new Date(build.lastEventAt).toISOString(),
    }))
    return { serving: generation(this.serving), building: generation(this.building), wanted: this.wanted.size, start_failure: this.startFailure, queries }
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.rescan) clearInterval(this.rescan)
    if (this.changed) clearTimeout(this.changed)
    await this.changes?.unsubscribe()
    if (this.gather) clearTimeout(this.gather)
    await Promise.all([this.serving?.stop(), this.building?.stop()])
  }

  private answerOf(key: string, build: Build): LiveAnswer | null {
    const now = this.now()
    const minute = Math.floor(now / MINUTE)
    const last = this.answered.get(key)
    if (last && last.minute === minute && (last.changes === build.changes || now - last.at < RECOMPUTE_MS)) return last.answer
    let response: unknown
    try {
      response = build.live.answer(now)
    } catch {
      // A moment the live form cannot answer at is answered by the engine, which says why if it cannot either.
      return null
    }
    if (response === null) return null
    const answer = deepFreeze({ response: response as JsonObject, lastEventAt: build.lastEventAt })
    this.answered.set(key, { changes: build.changes, minute, at: now, answer })
    return answer
  }

  private async want(key: string, environment: Environment, node: QueryNode): Promise<void> {
    if (!this.kept.has(key)) this.asked.set(key, this.now())
    if (this.wanted.has(key)) return
    let queryEnvironment: QueryEnvironment
    try {
      queryEnvironment = await queryEnvironmentOf(this.deps.models, environment, 'filterTestAccounts' in node && node.filterTestAccounts === true)
    } catch {
      // An environment a query cannot run in (its test-account filters are not filters): the engine says why on reads.
      return
    }
    const now = this.now()
    if (liveQueryOf(node, queryEnvironment, now) === null || this.wanted.has(key)) return
    // Each generation builds it as of its own start, so that it keeps nothing its window has left behind by then.
    this.wanted.set(key, { key, environmentId: environment.id, node, environment: queryEnvironment, live: () => liveQueryOf(node, queryEnvironment, this.now()) ?? liveQueryOf(node, queryEnvironment, now)! })
    if (this.gather) clearTimeout(this.gather)
    this.gather = setTimeout(() => this.startGeneration(), GATHER_MS)
    this.gather.unref()
  }

  private startGeneration(): void {
    this.gather = null
    if (this.stopped) return
    const now = this.now()
    for (const key of [...this.wanted.keys()]) {
      if (this.kept.has(key) || now - (this.asked.get(key) ?? 0) <= FORGET_AFTER_MS) continue
      this.wanted.delete(key)
      this.asked.delete(key)
    }
    void this.building?.stop()
    const generation = new Generation(this.deps, this.wanted.values(), (done) => this.promote(done), (stale) => this.rebuild(stale), (failed) => this.failed(failed))
    this.building = generation
    generation.start()
  }

  /**
   * Some queries of a generation went stale (an event they counted was stored again with other
   * content): a new generation is started at once, which counts the copy stored, unless one is
   * being built already that has not gone stale (it meets the new copy itself, and goes stale
   * then only if it had counted the old one). Reads get the engine's answer meanwhile.
   */
  private rebuild(generation: Generation): void {
    if (this.stopped || (generation !== this.serving && generation !== this.building)) return
    if (this.building !== null && this.building !== generation) return
    if (this.gather) clearTimeout(this.gather)
    this.startGeneration()
  }

  /**
   * A generation stopped on an error keeps nothing up to date: it serves no more (reads get the
   * engine's answer), and a new one is started after a wait, unless one is being built already.
   */
  private failed(generation: Generation): void {
    if (this.stopped) return
    if (generation === this.serving) {
      this.serving = null
      this.answered.clear()
    }
    if (generation === this.building) this.building = null
    if (this.building !== null) return
    if (this.gather) clearTimeout(this.gather)
    this.gather = setTimeout(() => this.startGeneration(), retryDelay(this.failures++))
    this.gather.unref()
  }

  private promote(generation: Generation): void {
    if (generation !== this.building || this.stopped) return
    const old = this.serving
    this.failures = 0
    this.serving = generation
    this.building = null
    this.answered.clear()
    void old?.stop()
  }
}
