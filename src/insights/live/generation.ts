import type { EventLog, Position, RecordedEvent, Subscription } from '../../eventlog/port.js'
import { EVENTS_CAPTURED } from '../../ingestion/captured-event.js'
import { capturedOf } from '../../ingestion/captured-projection.js'
import { IMPORT_COMMITTED } from '../../ingestion/import-events.js'
import type { Projections } from '../../readstore/projections.js'
import type { ReadModels } from '../../readstore/read-models.js'
import type { QueryEnvironment } from '../engine/data.js'
import type { QueryNode } from '../schema/query-node.js'
import { capturedIn, Feed, type FeedStep } from './feed.js'
import type { LiveQuery } from './live-query.js'

/** A query to keep live: its cache key (the query, its environment and the settings it depends on), and what builds it. */
export interface LiveDefinition {
  readonly key: string
  readonly environmentId: number
  readonly node: QueryNode
  readonly environment: QueryEnvironment
  readonly live: () => LiveQuery<unknown>
}

/** One live query of a generation. */
export interface Build {
  readonly definition: LiveDefinition
  live: LiveQuery<unknown>
  /** When the newest log event it includes was written (epoch ms); null before the first. */
  lastEventAt: number | null
  /** Steps applied so far: an answer is computed again only after one more. */
  changes: number
  /**
   * Whether an event it counted was stored again with other content since: it cannot take the
   * old copy back, so it answers no more, and a new generation counts the copy stored.
   */
  stale: boolean
  /**
   * Whether it was left out for the size of its state: with the others it would have held more
   * than the generation's budget. It keeps nothing and answers no more; reads compute instead.
   */
  tooLarge: boolean
}

/** What a build left out keeps and answers: nothing. */
const LEFT_OUT: LiveQuery<unknown> = { add: () => {}, merge: () => {}, answer: () => null, size: () => 0 }

/** Entries (cells and the actors in them, or persons' kept events) one generation's queries may keep, by default. */
export const DEFAULT_MAX_ENTRIES = 8_000_000
/** Events applied between two measures of the queries' state against the budget. */
const SIZE_EVERY = 20_000

/** Log events read ahead of the generation's work, at most. */
const READ_AHEAD = 4000
/** Log events taken from the queue at once, at most. */
const BATCH = 200
/**
 * Analytics events given to the live queries in one stretch of work, about: a stretch holds the
 * event loop while the feed reads their rows and every live query takes them (a capture request
 * holds up to thousands, so stretches are counted in analytics events, not log events).
 */
const STRETCH_EVENTS = 500
/** How long one wait for the projections lasts before it is asked again. */
const PROJECTION_WAIT_MS = 5000
/** The projections whose read models live queries are fed from. */
const FED_FROM = ['events', 'persons']

export interface GenerationDeps {
  readonly log: EventLog
  readonly models: ReadModels
  /** Where the events and persons projections stand, and whether every projection has caught up. */
  readonly projections: Pick<Projections, 'activeRunner' | 'whenCaughtUp'>
  /** The budget of a generation's state, in entries (`LiveQuery.size`); `DEFAULT_MAX_ENTRIES` unless given. */
  readonly maxEntries?: number
}

/**
 * A set of live queries built together from the start of the log, in one pass: each capture
 * request (and each import's requests) once the events and persons projections have applied it,
 * turned into steps by one feed, each step given to the queries of its environment. Once it has
 * caught up with the log it goes on with every new request.
 */
export class Generation {
  readonly builds = new Map<string, Build>()
  private readonly byEnvironment = new Map<number, Build[]>()
  private readonly feed: Feed
  private readonly queue: RecordedEvent[] = []
  private wake: (() => void) | null = null
  private drained: (() => void) | null = null
  private subscription: Subscription | null = null
  private sawCaughtUp = false
  private stopped = false
  /** Whether it has applied everything the log held when it started, and goes on live. */
  caughtUp = false
  /** Analytics events applied. */
  applied = 0
  /** Time spent giving steps to the live queries (ns), for their cost per event. */
  updateNs = 0n
  position: Position | null = null
  readonly startedAt = Date.now()
  /** Why it stopped, when it failed. */
  failure: string | null = null
  /** What its queries kept when last measured, in entries. */
  entries = 0
  private measuredAt = 0

  /**
   * `onStale` is called when some of its builds went stale (an event they counted was replaced);
   * `onFailed` once it has stopped on an error (the log unreachable): it keeps nothing up to date after.
   */
  constructor(
    private readonly deps: GenerationDeps,
    definitions: Iterable<LiveDefinition>,
    private readonly onCaughtUp: (generation: Generation) => void,
    private readonly onStale: (generation: Generation) => void = () => {},
    private readonly onFailed: (generation: Generation) => void = () => {},
  ) {
    for (const definition of definitions) {
      const build: Build = { definition, live: definition.live(), lastEventAt: null, changes: 0, stale: false, tooLarge: false }
      this.builds.set(definition.key, build)
      const builds = this.byEnvironment.get(definition.environmentId) ?? []
      builds.push(build)
      this.byEnvironment.set(definition.environmentId, builds)
    }
    this.feed = new Feed(deps.models)
  }

  /** Stops keeping one query: its state is let go at once. */
  drop(key: string): void {
    const build = this.builds.get(key)
    if (build === undefined) return
    this.builds.delete(key)
    const { environmentId } = build.definition
    const rest = (this.byEnvironment.get(environmentId) ?? []).filter((one) => one !== build)
    if (rest.length > 0) this.byEnvironment.set(environmentId, rest)
    else this.byEnvironment.delete(environmentId)
  }

  start(): void {
    void this.read().catch((error: unknown) => this.fail(error))
    void this.work().catch((error: unknown) => this.fail(error))
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.wake?.()
    this.drained?.()
    await this.subscription?.unsubscribe()
  }

  private fail(error: unknown): void {
    if (this.stopped) return
    this.failure = error instanceof Error ? error.message : String(error)
    void this.stop()
    this.onFailed(this)
  }

  private async read(): Promise<void> {
    this.subscription = this.deps.log.subscribeToAll({ fromPosition: 'start', filter: { eventTypes: [EVENTS_CAPTURED, IMPORT_COMMITTED] } })
    for await (const item of this.subscription) {
      if (this.stopped) return
      if (item.kind === 'event') this.queue.push(item.event)
      else if (item.kind === 'caughtUp') this.sawCaughtUp = true
      else continue
      this.wake?.()
      if (this.queue.length >= READ_AHEAD) await new Promise<void>((resolve) => { this.drained = resolve })
    }
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      if (this.queue.length === 0) {
        if (this.sawCaughtUp && !this.caughtUp) {
          this.keepWithinBudget()
          this.caughtUp = true
          this.onCaughtUp(this)
        }
        await new Promise<void>((resolve) => { this.wake = resolve })
        this.wake = null
        continue
      }
      const batch = this.queue.splice(0, BATCH)
      if (this.queue.length < READ_AHEAD) this.drained?.()
      await this.apply(batch)
    }
  }

  /** Waits until the projections the feed reads have applied `position`. */
  private async projected(position: Position): Promise<void> {
    for (const name of FED_FROM) {
      for (;;) {
        if (this.stopped) return
        const runner = this.deps.projections.activeRunner(name)
        if (runner !== null && await runner.waitFor(position, PROJECTION_WAIT_MS)) break
        if (runner === null) await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }
  }

  /**
   * Measures what the queries keep and, past the budget, leaves out the largest until the rest
   * fit: a history too large for one process's memory turns queries back to being computed on
   * reads rather than taking the process down.
   */
  private keepWithinBudget(): void {
    this.measuredAt = this.applied
    const budget = this.deps.maxEntries ?? DEFAULT_MAX_ENTRIES
    const sizes = [...this.builds.values()].filter((build) => !build.tooLarge).map((build) => ({ build, size: build.live.size() }))
    this.entries = sizes.reduce((sum, one) => sum + one.size, 0)
    for (const { build, size } of sizes.sort((a, b) => b.size - a.size)) {
      if (this.entries <= budget) break
      build.tooLarge = true
      build.live = LEFT_OUT
      this.entries -= size
    }
  }

  private async apply(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!
    await this.projected(last.position)
    if (this.stopped) return
    const captured: RecordedEvent[] = []
    for await (const event of capturedIn(this.deps.log, batch)) captured.push(event)
    let staled = false
    for (const stretch of stretchesOf(captured)) {
      if (this.stopped) return
      staled = this.give(await this.feed.steps(stretch)) || staled
      // Each stretch after the requests waiting on the event loop.
      await new Promise((resolve) => setImmediate(resolve))
    }
    for (const event of captured) {
      const environmentId = (event.data as { environmentId?: unknown }).environmentId
      const builds = typeof environmentId === 'number' ? this.byEnvironment.get(environmentId) : undefined
      for (const build of builds ?? []) build.lastEventAt = Math.max(build.lastEventAt ?? 0, event.created.getTime())
    }
    this.position = last.position
    if (this.applied - this.measuredAt >= SIZE_EVERY) this.keepWithinBudget()
    if (staled) this.onStale(this)
  }

  /** Gives the feed's steps to the live queries of their environments; whether some of them went stale. */
  private give(steps: readonly FeedStep[]): boolean {
    const started = process.hrtime.bigint()
    let staled = false
    for (const step of steps) {
      const builds = this.byEnvironment.get(step.environmentId)
      if (builds === undefined) continue
      if (step.kind === 'replaced') {
        for (const build of builds) if (!build.stale) staled = build.stale = true
        continue
      }
      for (const build of builds) {
        if (build.stale) continue
        if (step.kind === 'event') build.live.add(step.event)
        else build.live.merge(step.from, step.into)
        build.changes++
      }
      if (step.kind === 'event') this.applied++
    }
    this.updateNs += process.hrtime.bigint() - started
    return staled
  }
}

/** Capture requests in runs of about `STRETCH_EVENTS` analytics events (a larger request alone). */
function* stretchesOf(captured: readonly RecordedEvent[]): Generator<RecordedEvent[]> {
  let stretch: RecordedEvent[] = []
  let events = 0
  for (const event of captured) {
    stretch.push(event)
    events += capturedOf(event).events.length
    if (events < STRETCH_EVENTS) continue
    yield stretch
    stretch = []
    events = 0
  }
  if (stretch.length > 0) yield stretch
}
