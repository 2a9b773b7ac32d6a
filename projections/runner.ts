import type { EventLog, JsonObject, Position, RecordedEvent, Subscription, SubscriptionItem } from '../src/eventlog/port.js'
import { comparePositions } from '../src/eventlog/port.js'
import { CheckpointConflict, type DocumentChange, type ReadStore } from '../src/readstore/port.js'
import { EVENTS_CAPTURED } from '../src/ingestion/captured-event.js'
import { IMPORT_COMMITTED, capturedFromImport } from '../src/ingestion/import-events.js'
import type { DocumentRef, Projector } from './projector.js'
import { checkpointName, physicalCollection, type Build } from './names.js'

export type RunnerStatus = 'starting' | 'catching_up' | 'live' | 'failed' | 'stopped'

export interface RunnerOptions {
  readonly log: EventLog
  readonly store: ReadStore
  readonly projector: Projector
  readonly build: Build
  /** Events folded before a commit. Default 500. */
  readonly batchSize?: number
  /** Minimum time between checkpoint-only commits while nothing matches. Default 1000 ms. */
  readonly idleCheckpointMs?: number
  /** `fatal` when the projection stopped; otherwise it retries after a backoff. */
  readonly onError?: (error: unknown, fatal: boolean) => void
}

class NeedDocument {
  constructor(readonly collection: string, readonly id: string) {}
}

/** The projector's own code threw: retrying cannot help, so the projection stops. */
class ProjectorFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('projector failed', { cause })
  }
}

const IDLE = Symbol('idle')
const idle = (ms: number): Promise<typeof IDLE> =>
  new Promise((resolve) => (ms === 0 ? setImmediate(() => resolve(IDLE)) : setTimeout(() => resolve(IDLE), ms).unref()))
const CACHE_LIMIT = 50_000

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

/**
 * Runs one build of one projector: subscribes to the log from the stored checkpoint, folds
 * batches in memory, commits documents and checkpoint in one atomic step, and wakes the callers
 * waiting for a position. It is the only writer of its collections, so the documents it has
 * committed can stay cached between batches.
 */
export class ProjectionRunner {
  readonly checkpointName: string
  status: RunnerStatus = 'starting'
  /** Every event at or before this position has been applied and committed (or skipped). */
  position: Position | null = null
  private committed: Position | null = null
  private lastPersistAt = 0
  private unpersisted: Position | null = null
  private readonly cache = new Map<string, JsonObject | null>()
  private readonly waiters = new Set<{ position: Position; resolve: (reached: boolean) => void }>()
  private stopRequested = false
  private unsubscribe: (() => Promise<void>) | undefined
  private loop: Promise<void> | undefined

  constructor(private readonly options: RunnerOptions) {
    this.checkpointName = checkpointName(options.projector.name, options.build)
  }

  /**
   * A projector of captured events also sees committed historical imports, as the
   * `EventsCaptured` events they hold; the import's own chunk records never reach it.
   */
  private get readsImports(): boolean {
    const { handles } = this.options.projector
    return handles.includes(EVENTS_CAPTURED) && !handles.includes(IMPORT_COMMITTED)
  }

  private get idleCheckpointMs(): number {
    return this.options.idleCheckpointMs ?? 1000
  }

  get projector(): Projector {
    return this.options.projector
  }

  get build(): Build {
    return this.options.build
  }

  physical(collection: string): string {
    return physicalCollection(collection, this.options.build)
  }

  async start(): Promise<void> {
    const { store, projector } = this.options
    for (const [collection, indexes] of Object.entries(projector.indexes ?? {})) {
      for (const fields of indexes) await store.ensureIndex(this.physical(collection), fields)
    }
    this.status = 'catching_up'
    this.loop = this.supervise().catch((error: unknown) => {
      this.status = 'failed'
      this.releaseWaiters()
      this.options.onError?.(error, true)
    })
  }

  /**
   * Runs from the stored checkpoint. When a commit finds the checkpoint moved (another instance
   * of this build got there first), the cached documents may be stale: drop them and resume from
   * what is stored. When the log or the store fails, retry with backoff. Only an error thrown by
   * the projector's own code stops the projection: nothing is ever skipped.
   */
  private async supervise(): Promise<void> {
    let failures = 0
    while (!this.stopRequested) {
      this.cache.clear()
      this.unpersisted = null
      const subscription = await this.resume()
      try {
        await this.run(subscription[Symbol.asyncIterator]())
        return
      } catch (error) {
        await subscription.unsubscribe().catch(() => undefined)
        if (error instanceof ProjectorFailed) throw error.cause
        if (error instanceof CheckpointConflict) continue
        this.options.onError?.(error, false)
        failures++
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 50 * 2 ** failures)))
      }
    }
  }

  private async resume(): Promise<Subscription> {
    this.committed = await this.options.store.checkpoint(this.checkpointName)
    if (this.committed && (!this.position || comparePositions(this.committed, this.position) > 0)) this.advance(this.committed)
    const subscription = this.options.log.subscribeToAll({
      fromPosition: this.committed ?? 'start',
      filter: { eventTypes: this.readsImports ? [...this.options.projector.handles, IMPORT_COMMITTED] : this.options.projector.handles },
    })
    this.unsubscribe = () => subscription.unsubscribe()
    return subscription
  }

  private async run(items: AsyncIterator<SubscriptionItem>): Promise<void> {
    const batchSize = this.options.batchSize ?? 500
    const batch: RecordedEvent[] = []
    let pending: Promise<IteratorResult<SubscriptionItem>> | null = null
    while (!this.stopRequested) {
      pending ??= items.next()
      // While events keep arriving without a wait, keep folding; commit as soon as the source
      // pauses. A skipped-to position is persisted once things have been quiet for a while.
      const wait = batch.length > 0 ? 0 : this.unpersisted ? this.idleCheckpointMs : -1
      const result = wait < 0 ? await pending : await Promise.race([pending, idle(wait)])
      if (result === IDLE) {
        if (batch.length > 0) await this.flush(batch)
        else await this.persist(this.unpersisted!)
        continue
      }
      pending = null
      if (result.done) break
      const item = result.value
      if (item.kind === 'event') {
        batch.push(item.event)
        // An import is committed on its own, so one commit never holds more than one import.
        if (batch.length >= batchSize || item.event.type === IMPORT_COMMITTED) await this.flush(batch)
      } else {
        await this.flush(batch)
        if (item.kind === 'checkpoint') await this.skipTo(item.position)
        else this.status = 'live'
      }
    }
    await this.flush(batch)
  }

  private async flush(batch: RecordedEvent[]): Promise<void> {
    if (batch.length === 0) return
    const events = batch.splice(0)
    const dirty = new Set<string>()
    for (const event of events) {
      if (event.type === IMPORT_COMMITTED && this.readsImports) {
        // Every chunk of the import is applied in this same commit: all of it becomes visible, or none.
        for await (const chunk of capturedFromImport(this.options.log, event)) await this.applyEvent(chunk, dirty)
      } else {
        await this.applyEvent(event, dirty)
      }
    }
    const changes: DocumentChange[] = [...dirty].map((key) => {
      const [collection, id] = key.split('\u0000') as [string, string]
      return { collection: this.physical(collection), id, doc: this.cache.get(key) ?? null }
    })
    const next = events.at(-1)!.position
    await this.options.store.commit({ checkpoint: this.checkpointName, expected: this.committed, next, changes })
    this.committed = next
    this.unpersisted = null
    this.lastPersistAt = Date.now()
    if (this.cache.size > CACHE_LIMIT) this.cache.clear()
    this.advance(next)
  }

  /** Loads what the projector says it will read, a few rounds at most; `apply` loads any rest. */
  private async prefetch(event: RecordedEvent): Promise<void> {
    const { projector, store } = this.options
    const peek = (collection: string, id: string): JsonObject | null | undefined => this.cache.get(`${collection}\u0000${id}`)
    for (let round = 0; round < 4; round++) {
      let wanted: DocumentRef[]
      try {
        wanted = [...projector.prefetch!(event, peek)].filter(([collection, id]) => {
          if (!projector.collections.includes(collection)) throw new TypeError(`${projector.name} does not own ${collection}`)
          return !this.cache.has(`${collection}\u0000${id}`)
        })
      } catch (error) {
        throw new ProjectorFailed(error)
      }
      if (wanted.length === 0) return
      for (const [collection, id] of wanted) {
        const key = `${collection}\u0000${id}`
        if (!this.cache.has(key)) this.cache.set(key, deepFreeze(await store.get(this.physical(collection), id)))
      }
    }
  }

  private async applyEvent(event: RecordedEvent, dirty: Set<string>): Promise<void> {
    const { projector, store } = this.options
    if (projector.prefetch) await this.prefetch(event)
    for (;;) {
      const staged = new Map<string, JsonObject | null>()
      const keyOf = (collection: string, id: string): string => {
        if (!projector.collections.includes(collection)) throw new TypeError(`${projector.name} does not own ${collection}`)
        return `${collection}\u0000${id}`
      }
      try {
        projector.apply({
          get: <T extends JsonObject>(collection: string, id: string) => {
            const key = keyOf(collection, id)
            if (staged.has(key)) return staged.get(key) as T | null
            if (this.cache.has(key)) return this.cache.get(key) as T | null
            throw new NeedDocument(collection, id)
          },
          put: (collection, id, doc) => { staged.set(keyOf(collection, id), deepFreeze(doc)) },
          delete: (collection, id) => { staged.set(keyOf(collection, id), null) },
        }, event)
      } catch (error) {
        if (!(error instanceof NeedDocument)) throw new ProjectorFailed(error)
        const doc = await store.get(this.physical(error.collection), error.id)
        this.cache.set(`${error.collection}\u0000${error.id}`, deepFreeze(doc))
        continue
      }
      for (const [key, doc] of staged) {
        this.cache.set(key, doc)
        dirty.add(key)
      }
      return
    }
  }

  /** Nothing this projector reads lies at or before `position`: move on, persisting now and then. */
  private async skipTo(position: Position): Promise<void> {
    if (this.position && comparePositions(position, this.position) <= 0) return
    this.advance(position)
    if (Date.now() - this.lastPersistAt >= this.idleCheckpointMs) await this.persist(position)
    else this.unpersisted = position
  }

  private async persist(position: Position): Promise<void> {
    this.unpersisted = null
    if (this.committed && comparePositions(position, this.committed) <= 0) return
    await this.options.store.commit({ checkpoint: this.checkpointName, expected: this.committed, next: position, changes: [] })
    this.committed = position
    this.lastPersistAt = Date.now()
  }

  private advance(position: Position): void {
    this.position = position
    for (const waiter of [...this.waiters]) {
      if (comparePositions(position, waiter.position) >= 0) {
        this.waiters.delete(waiter)
        waiter.resolve(true)
      }
    }
  }

  private releaseWaiters(): void {
    for (const waiter of this.waiters) waiter.resolve(false)
    this.waiters.clear()
  }

  /** Resolves true once everything up to `position` is applied, false after `timeoutMs` or a failure. */
  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    if (this.position && comparePositions(this.position, position) >= 0) return Promise.resolve(true)
    if (this.status === 'failed' || this.status === 'stopped') return Promise.resolve(false)
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (reached: boolean) => { clearTimeout(timer); resolve(reached) },
      }
      const timer = setTimeout(() => { this.waiters.delete(waiter); resolve(false) }, timeoutMs)
      this.waiters.add(waiter)
    })
  }

  async stop(): Promise<void> {
    this.stopRequested = true
    await this.unsubscribe?.()
    await this.loop
    if (this.status !== 'failed') this.status = 'stopped'
    this.releaseWaiters()
  }
}
