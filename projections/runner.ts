import type { EventLog, Position, RecordedEvent, Subscription, SubscriptionItem } from '../src/eventlog/port.js'
import { comparePositions, positionToString } from '../src/eventlog/port.js'
import { randomUuid } from '../src/kernel/ids.js'
import { CheckpointConflict, type DocumentChange, type ReadStore, type StagingKey } from '../src/readstore/port.js'
import type { Projector } from '../src/readstore/projector.js'
import { checkpointName, physicalCollection, type Build } from '../src/readstore/names.js'
import type { RunnerStatus } from '../src/readstore/projections.js'
import { isTransientStoreError } from '../src/kernel/storage-errors.js'
import { QUARANTINE, errorText, quarantineRecord } from './quarantine.js'
import { NeedPartition, ProjectorFailed, StagedView } from './staged-view.js'
import { PositionWaiters } from './waiters.js'
import type { DecodedEvents } from './decoded-events.js'
import { WHOLE, type Partition } from '../src/readstore/partition.js'

export interface RunnerOptions {
  readonly log: EventLog
  readonly store: ReadStore
  readonly projector: Projector
  readonly build: Build
  /**
   * The share of a partitioned projector (`Projector.partitioned`) this runner builds, with a
   * checkpoint of its own; the whole projection by default.
   */
  readonly partition?: Partition
  /** Derivations of log events shared with the other runners of a projection set; else the runner keeps its own. */
  readonly decodings?: DecodedEvents
  /** Events folded before a commit. Default 500. */
  readonly batchSize?: number
  /**
   * Documents written per store call while an expanded event (a historical import) is applied:
   * its changes are staged in parts of this size and published with the checkpoint in one small
   * commit, so readers see all of it or none. Default 1000.
   */
  readonly importPartSize?: number
  /** Minimum time between checkpoint-only commits while nothing matches. Default 1000 ms. */
  readonly idleCheckpointMs?: number
  /** Failed commits of the same events before the runtime looks for the one at fault. Default 3. */
  readonly attemptsBeforeQuarantine?: number
  /** `fatal` when the projection stopped; otherwise it retries after a backoff. */
  readonly onError?: (error: unknown, fatal: boolean) => void
  /** Called once for each event the projection skips. */
  readonly onQuarantine?: (record: DocumentChange) => void
  /** Called whenever the applied position moves. */
  readonly onAdvance?: (position: Position) => void
  /** Called once, when the build has first caught up with the head of the log. */
  readonly onLive?: () => void
  /**
   * Creates the projector's own indexes when the build first catches up, before it reports `live`,
   * instead of at start. For a build that serves no query until it is switched to (a rebuild, a new
   * version): the projector reads its documents by id only, so the indexes serve nothing while it
   * catches up, and building each one once over the filled tables costs less than keeping it
   * sorted through every commit. What an index needs beside itself (the embedded store's columns)
   * is still readied at start, so the documents are written with it. Default false.
   */
  readonly indexesWhenLive?: boolean
}

const IDLE = Symbol('idle')
/** How often a partition's runner lets its thread's timers run while it catches up: well within any lease. */
const TURN_MS = 50
/** How long a runner waits with nothing to do before it lets go of the documents it keeps. */
const RELEASE_AFTER_MS = 2000
const idle = (ms: number): Promise<typeof IDLE> =>
  new Promise((resolve) => (ms === 0 ? setImmediate(() => resolve(IDLE)) : setTimeout(() => resolve(IDLE), ms).unref()))

/**
 * Wait before the next attempt: doubling from 100 ms to 5 s, with up to a quarter taken off at
 * random, so that the runners of a set do not all come back to a recovering server at once.
 */
const backoff = (failures: number): number => {
  const full = Math.min(5000, 50 * 2 ** Math.min(failures, 7))
  return Math.round(full * (1 - Math.random() / 4))
}

/** A runner asked to stop while it waited for another partition. */
class Stopping extends Error {}

const sameEvent = (a: RecordedEvent, b: { position: Position; id: string }): boolean =>
  comparePositions(a.position, b.position) === 0 && a.id === b.id

/**
 * Runs one build of one projector: subscribes to the log from the stored checkpoint, folds
 * batches in memory, and commits documents and checkpoint in one atomic step.
 *
 * No event can stop it. An event the projector throws on is quarantined at once (recorded, with
 * the error, in the same commit that moves past it), and for a packed event only the parts that
 * fail. A commit the store keeps refusing is retried, then replayed one log event per commit until
 * the refused one is found and quarantined. Both rules depend only on the events and the code, so
 * a rebuild skips the same events. Store errors that pass by themselves (busy, full, unreachable,
 * a failover: `isTransientStoreError`, by driver code and label) are retried with backoff without
 * end and never quarantine anything.
 */
export class ProjectionRunner {
  readonly checkpointName: string
  status: RunnerStatus = 'starting'
  /** The last error a commit or the subscription failed with, and when (ms since the epoch). */
  lastError: { readonly message: string; readonly at: number } | null = null
  private readonly waiters = new PositionWaiters()
  private readonly view: StagedView
  private committed: Position | null = null
  private lastPersistAt = 0
  private unpersisted: Position | null = null
  /** While set, one log event per commit, up to this position: the search for a refused event. */
  private stepUntil: Position | null = null
  /** The events of the commit in progress, to know which ones a failure concerns. */
  private attempt: RecordedEvent[] = []
  /** A log event whose commit the store refuses, with the refusal: the next pass skips it. */
  private refused: { event: RecordedEvent; error: unknown } | null = null
  private stopRequested = false
  private unsubscribe: (() => Promise<void>) | undefined
  private loop: Promise<void> | undefined
  private readonly partition: Partition
  /** The log event being folded, and the partitions seen to have committed every event before it. */
  private folding: { event: RecordedEvent; reached: Set<number> } | null = null
  /** When the loop last turned after a commit (`letTimersRun`). */
  private turnedAt = 0

  constructor(private readonly options: RunnerOptions) {
    const partition = this.partition = options.partition ?? WHOLE
    if (partition.count > 1 && options.projector.partitioned !== true) throw new TypeError(`${options.projector.name} cannot be built in partitions`)
    this.checkpointName = checkpointName(options.projector.name, options.build, partition)
    this.view = new StagedView(options.projector, options.store, (collection) => this.physical(collection),
      { partition, ...(options.decodings ? { decodings: options.decodings } : {}) })
    if (options.onAdvance) this.waiters.onAdvance = options.onAdvance
  }

  get projector(): Projector {
    return this.options.projector
  }

  get build(): Build {
    return this.options.build
  }

  /** Every event at or before this position has been applied and committed (or skipped). */
  get position(): Position | null {
    return this.waiters.position
  }

  /** When the position last moved (ms since the epoch). */
  get movedAt(): number {
    return this.waiters.movedAt
  }

  physical(collection: string): string {
    return physicalCollection(collection, this.options.build)
  }

  async start(): Promise<void> {
    if (this.options.indexesWhenLive === true) await this.ensureIndexes((collection, fields) => this.options.store.prepareIndex?.(collection, fields))
    else await this.ensureIndexes()
    await this.options.store.ensureIndex(QUARANTINE, ['checkpoint'])
    this.status = 'catching_up'
    this.loop = this.supervise().catch((error: unknown) => {
      this.status = 'failed'
      this.waiters.release()
      this.options.onError?.(error, true)
    })
  }

  /**
   * The projector's own indexes (or, with `make`, what `make` does for each); each call after the
   * first finds them there (`ensureIndex` and `prepareIndex` are idempotent).
   */
  private async ensureIndexes(
    make: (collection: string, fields: readonly string[]) => Promise<void> | undefined = (collection, fields) => this.options.store.ensureIndex(collection, fields),
  ): Promise<void> {
    for (const [collection, indexes] of Object.entries(this.options.projector.indexes ?? {})) {
      for (const fields of indexes) await make(this.physical(collection), fields)
    }
  }

  /**
   * Runs from the stored checkpoint; after any failure, drops what is cached and resumes from what
   * is stored (another instance of this build may have moved it).
   */
  private async supervise(): Promise<void> {
    let transient = 0
    let refusals = 0
    const limit = this.options.attemptsBeforeQuarantine ?? 3
    while (!this.stopRequested) {
      this.view.reset()
      this.unpersisted = null
      this.attempt = []
      const movedAt = this.movedAt
      let subscription: Subscription | undefined
      try {
        subscription = await this.resume()
        await this.run(subscription[Symbol.asyncIterator]())
        return
      } catch (error) {
        await subscription?.unsubscribe().catch(() => undefined)
        if (this.stopRequested) return
        if (error instanceof CheckpointConflict) continue
        this.lastError = { message: errorText(error), at: Date.now() }
        this.options.onError?.(error, false)
        // A new outage after the projection moved on starts again from the shortest wait.
        if (this.movedAt !== movedAt) transient = 0
        if (isTransientStoreError(error) || this.attempt.length === 0) {
          transient++
        } else {
          transient = 0
          refusals++
          if (refusals >= limit) {
            refusals = 0
            if (this.attempt.length === 1) this.refused = { event: this.attempt[0]!, error }
            else this.stepUntil = this.attempt.at(-1)!.position
          }
        }
        await new Promise((resolve) => setTimeout(resolve, backoff(transient)))
      }
    }
  }

  private async resume(): Promise<Subscription> {
    this.committed = await this.options.store.checkpoint(this.checkpointName)
    if (this.committed && !this.waiters.reached(this.committed)) this.waiters.advance(this.committed)
    const subscription = this.options.log.subscribeToAll({
      fromPosition: this.committed ?? 'start',
      filter: { eventTypes: this.options.projector.handles },
    })
    this.unsubscribe = () => subscription.unsubscribe()
    return subscription
  }

  private batchLimit(): number {
    if (this.stepUntil && this.position && comparePositions(this.position, this.stepUntil) >= 0) this.stepUntil = null
    return this.stepUntil ? 1 : this.options.batchSize ?? 500
  }

  private async run(items: AsyncIterator<SubscriptionItem>): Promise<void> {
    const idleCheckpointMs = this.options.idleCheckpointMs ?? 1000
    const batch: RecordedEvent[] = []
    let weight = 0
    const weightOf = this.options.projector.weight ?? (() => 1)
    let pending: Promise<IteratorResult<SubscriptionItem>> | null = null
    while (!this.stopRequested) {
      pending ??= items.next()
      // While events keep arriving without a wait, keep folding; commit as soon as the source
      // pauses. A skipped-to position is persisted once things have been quiet for a while.
      const wait = batch.length > 0 ? 0 : this.unpersisted ? idleCheckpointMs : RELEASE_AFTER_MS
      const result = await Promise.race([pending, idle(wait)])
      if (result === IDLE) {
        if (batch.length > 0) await this.flush(batch)
        else if (this.unpersisted) await this.persist(this.unpersisted)
        // Nothing has come for a while: the documents kept for the next batch go, and their memory with them.
        else this.view.release()
        weight = 0
        continue
      }
      pending = null
      if (result.done) break
      const item = result.value
      if (item.kind === 'event') {
        batch.push(item.event)
        weight += weightOf(item.event)
        if (weight >= this.batchLimit()) {
          await this.flush(batch)
          weight = 0
        }
      } else {
        await this.flush(batch)
        weight = 0
        if (item.kind === 'checkpoint') await this.skipTo(item.position)
        else if (this.status !== 'live') {
          // Before `live`, so a build that deferred its indexes has every one before it can be
          // switched to, also when it started again after a restart; a failure here is retried as
          // any other, from the stored checkpoint.
          if (this.options.indexesWhenLive === true) await this.ensureIndexes()
          this.status = 'live'
          this.options.onLive?.()
        }
      }
    }
    await this.flush(batch)
  }

  /**
   * Folds `batch` (emptying it) and commits; an expanded event ends a commit of its own. When a
   * partition's fold of an event waits for another partition, what precedes the event is
   * committed first, so that partitions waiting for each other always let one of them go on.
   */
  private async flush(batch: RecordedEvent[]): Promise<void> {
    const { projector, log } = this.options
    const folds = projector.fold !== undefined && this.partition.count > 1
    while (batch.length > 0) {
      const events: RecordedEvent[] = []
      const quarantined: DocumentChange[] = []
      let staged: StagingKey | null = null
      try {
        while (batch.length > 0) {
          const event = batch[0]!
          const expanded = projector.expand?.(event, log) ?? null
          // Its fold may wait for another partition before anything of it is applied.
          if (expanded !== null && folds && events.length > 0) break
          batch.shift()
          events.push(event)
          this.startFolding(event)
          if (expanded === null) {
            await this.applyOrQuarantine(event, quarantined)
            continue
          }
          if (folds) await this.foldUnits(event, quarantined)
          if (!this.skipRefused(event, quarantined)) staged = await this.applyExpanded(expanded, events, quarantined)
          break
        }
      } catch (error) {
        if (!(error instanceof NeedPartition)) throw error
        batch.unshift(events.pop()!)
        if (events.length > 0) await this.commit(events, quarantined)
        await this.awaitPartition(error.partition)
        continue
      }
      await this.commit(events, quarantined, staged)
    }
  }

  private startFolding(event: RecordedEvent): void {
    if (this.folding?.event !== event) this.folding = { event, reached: new Set() }
    this.view.partitionsReached(this.folding.reached)
  }

  /**
   * Waits until partition `index` of this build has committed every event this runner has passed,
   * then forgets every loaded document: the fold that asked for it moves documents that partition
   * wrote into this one, and this partition may hold old copies of them.
   */
  private async awaitPartition(index: number): Promise<void> {
    if (this.unpersisted) await this.persist(this.unpersisted)
    const until = this.position
    if (until !== null) {
      const other = checkpointName(this.options.projector.name, this.options.build, { index, count: this.partition.count })
      for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
        if (this.stopRequested) throw new Stopping('stopped while waiting for another partition')
        const reached = await this.options.store.checkpoint(other)
        if (reached !== null && comparePositions(reached, until) >= 0) break
        await new Promise((resolve) => setTimeout(resolve, pause))
      }
    }
    this.view.reset()
    this.folding?.reached.add(index)
  }

  /** Folds every unit of an expanded event, before any is applied (`Projector.fold`). */
  private async foldUnits(event: RecordedEvent, quarantined: DocumentChange[]): Promise<void> {
    for await (const unit of this.options.projector.expand!(event, this.options.log)!) await this.foldOrQuarantine(unit, quarantined)
  }

  /** Folds one event into the partition's own state; false when the projector threw there, and the event is quarantined. */
  private async foldOrQuarantine(event: RecordedEvent, quarantined: DocumentChange[]): Promise<boolean> {
    try {
      await this.view.fold(event)
      return true
    } catch (error) {
      if (!(error instanceof ProjectorFailed)) throw error
      quarantined.push(this.quarantine(event, null, error.cause))
      return false
    }
  }

  /**
   * Applies the units of an expanded event, staging the changes in the store whenever a part's
   * worth has gathered. The key names the event's position in this build, and a fresh attempt, so
   * a retry never mixes with the parts of a try that was cut short. Null when nothing was staged.
   */
  private async applyExpanded(units: AsyncIterable<RecordedEvent>, events: RecordedEvent[], quarantined: DocumentChange[]): Promise<StagingKey | null> {
    const partSize = this.options.importPartSize ?? 1000
    const key = { group: `${this.checkpointName}@${positionToString(events.at(-1)!.position)}`, attempt: randomUuid() }
    let staged = false
    this.attempt = events
    for await (const unit of units) {
      await this.applyOrQuarantine(unit, quarantined, false)
      if (this.view.pending() >= partSize) {
        await this.options.store.stage(key, this.view.changes())
        this.view.staged()
        staged = true
      }
    }
    return staged ? key : null
  }

  /** True when `event` is the one the store refused: it is quarantined instead of applied. */
  private skipRefused(event: RecordedEvent, quarantined: DocumentChange[]): boolean {
    if (!this.refused || !sameEvent(event, this.refused.event)) return false
    quarantined.push(this.quarantine(event, null, this.refused.error))
    this.refused = null
    return true
  }

  /** Applies an event, or a unit of an expanded one (`whole` false: folded with the others, never refused alone). */
  private async applyOrQuarantine(event: RecordedEvent, quarantined: DocumentChange[], whole = true): Promise<void> {
    if (whole && this.partition.count > 1 && !(await this.foldOrQuarantine(event, quarantined))) return
    if (whole && this.skipRefused(event, quarantined)) return
    const failure = await this.tryApply(event)
    if (failure === null) return
    const parts = this.partsOf(event)
    if (parts.length < 2) {
      quarantined.push(this.quarantine(event, null, failure.cause))
      return
    }
    for (const [index, part] of parts.entries()) {
      const partFailure = await this.tryApply(part)
      if (partFailure !== null) quarantined.push(this.quarantine(event, index, partFailure.cause))
    }
  }

  /** Applies one event; what the projector threw, or null when it applied. */
  private async tryApply(event: RecordedEvent): Promise<{ cause: unknown } | null> {
    try {
      await this.view.apply(event)
      return null
    } catch (error) {
      if (!(error instanceof ProjectorFailed)) throw error
      return { cause: error.cause }
    }
  }

  private partsOf(event: RecordedEvent): readonly RecordedEvent[] {
    try {
      return this.options.projector.split?.(event) ?? []
    } catch {
      return []
    }
  }

  private quarantine(event: RecordedEvent, part: number | null, error: unknown): DocumentChange {
    const record = quarantineRecord(this.checkpointName, this.options.projector.name, event, part, error)
    const change = { collection: QUARANTINE, id: record.id, doc: record }
    this.options.onQuarantine?.(change)
    return change
  }

  /** Commits the batch; when part of it was staged under `staged`, stages the rest and publishes it all with the checkpoint. */
  private async commit(events: RecordedEvent[], quarantined: DocumentChange[], staged: StagingKey | null = null): Promise<void> {
    const next = events.at(-1)!.position
    this.attempt = events
    const { store } = this.options
    if (staged !== null && this.view.pending() > 0) {
      await store.stage(staged, this.view.changes())
      this.view.staged()
    }
    await store.commit({
      checkpoint: this.checkpointName, expected: this.committed, next, changes: [...this.view.changes(), ...quarantined],
      ...(staged === null ? {} : { publish: staged }),
    })
    this.attempt = []
    this.view.committed()
    this.committed = next
    this.unpersisted = null
    this.lastPersistAt = Date.now()
    this.waiters.advance(next)
    await this.letTimersRun()
  }

  /**
   * The log and the embedded store can answer at once, so a runner catching up can go from commit
   * to commit without its thread's loop ever reaching the timers. A partition's lease and its
   * process's membership are renewed on a timer and would lapse, so a partition's runner lets the
   * loop turn once a commit comes at least `TURN_MS` after its last turn. An unpartitioned runner
   * does not: each turn lets the thread's other work in (wake-ups, collections), which in a service
   * under heavy ingestion made the main thread's health answers slower (`heavy-requests.test.ts`).
   */
  private async letTimersRun(): Promise<void> {
    if (this.partition.count <= 1 || performance.now() - this.turnedAt < TURN_MS) return
    await new Promise((resolve) => setImmediate(resolve))
    this.turnedAt = performance.now()
  }

  /** Nothing this projector reads lies at or before `position`: move on, persisting now and then. */
  private async skipTo(position: Position): Promise<void> {
    if (this.waiters.reached(position)) return
    this.waiters.advance(position)
    if (Date.now() - this.lastPersistAt >= (this.options.idleCheckpointMs ?? 1000)) await this.persist(position)
    else this.unpersisted = position
  }

  private async persist(position: Position): Promise<void> {
    this.unpersisted = null
    if (this.committed && comparePositions(position, this.committed) <= 0) return
    await this.options.store.commit({ checkpoint: this.checkpointName, expected: this.committed, next: position, changes: [] })
    this.committed = position
    this.lastPersistAt = Date.now()
  }

  /** Resolves true once everything up to `position` is applied, false after `timeoutMs` or a failure. */
  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    if (this.waiters.reached(position)) return Promise.resolve(true)
    if (this.status === 'failed' || this.status === 'stopped') return Promise.resolve(false)
    return this.waiters.wait(position, timeoutMs)
  }

  async stop(): Promise<void> {
    this.stopRequested = true
    await this.unsubscribe?.()
    await this.loop
    if (this.status !== 'failed') this.status = 'stopped'
    this.waiters.release()
  }
}
