import {
  END, START, StreamDeletedError, StreamNotFoundError, convertToCommandError, eventTypeFilter, excludeSystemEvents, streamNameFilter,
  type AllStreamResolvedEvent, type AllStreamSubscription, type EventStoreDBClient, type Filter, type ReadPosition, type StreamingRead,
} from '@eventstore/db-client'
import { EventLogError, StreamDeleted, StreamNotFound, Unavailable } from './errors.js'
import { isTransientStoreError } from '../kernel/storage-errors.js'
import type { IdleQuestion, IdleWait } from './esdb-head-watcher.js'
import type { ScanRecord } from './esdb-quiet-head.js'
import {
  comparePositions, type JsonObject, type Position, type RecordedEvent, type SubscribeOptions, type Subscription,
  type SubscriptionFilter, type SubscriptionItem,
} from './port.js'

/** The fields we read from the client's recorded events, JSON or binary. */
export interface ClientRecord {
  readonly streamId: string
  readonly id: string
  readonly revision: bigint
  readonly type: string
  readonly data: unknown
  readonly metadata: unknown
  readonly created: Date
  readonly position?: { readonly commit: bigint; readonly prepare: bigint } | undefined
}

export const isSystemRecord = (record: Pick<ClientRecord, 'type' | 'streamId'>): boolean => record.type.startsWith('$') || record.streamId.startsWith('$')

/** BigInt() because clients of this family have returned numbers where bigints were declared. */
export const fromClientPosition = (position: { readonly commit: bigint; readonly prepare: bigint }): Position =>
  ({ commit: BigInt(position.commit), prepare: BigInt(position.prepare) })

export const positionOf = (record: ClientRecord): Position => {
  if (!record.position) throw new EventLogError(`EventStoreDB sent ${record.streamId}@${record.revision} without a position; it needs server 22.6 or later`)
  return fromClientPosition(record.position)
}

export const fromClientRecord = (record: ClientRecord): RecordedEvent => ({
  streamId: record.streamId,
  id: record.id,
  revision: BigInt(record.revision),
  type: record.type,
  // validateEvent lets only JSON objects in, so every event we read back carries one.
  data: record.data as JsonObject,
  metadata: record.metadata as JsonObject | undefined,
  created: new Date(record.created),
  position: positionOf(record),
})

/**
 * Some calls reject with the raw gRPC error (the client asks the server for its features before
 * an append, and that call is not translated): run it through the client's own conversion first.
 */
export const asCommandError = (error: unknown): unknown => {
  if (!(error instanceof Error)) return error
  try {
    return convertToCommandError(error)
  } catch {
    return error
  }
}

/** Read-side translation: the client's errors stop here. Unknown errors pass unchanged. */
export const toEventLogError = (raw: unknown, stream?: string): unknown => {
  const error = asCommandError(raw)
  if (error instanceof StreamNotFoundError) return new StreamNotFound(stream ?? error.streamName)
  if (error instanceof StreamDeletedError) return new StreamDeleted(stream ?? error.streamName)
  if (error instanceof EventLogError) return error
  // By the client's error type and the gRPC status (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED,
  // RESOURCE_EXHAUSTED, not-leader, "server is not ready or busy"), as the kernel classifies them.
  if (isTransientStoreError(error)) return new Unavailable((error as Error).message, { cause: raw })
  return error
}

/** A position the client can send: START for the port's `{-1, -1}`, which it would encode as the end. */
export const toReadPosition = (position: 'start' | 'end' | Position): ReadPosition =>
  position === 'start' || (position !== 'end' && position.commit < 0n) ? START
    : position === 'end' ? END
      : { commit: position.commit, prepare: position.prepare }

/** Iterates a streaming read, translating its errors and cancelling the gRPC call if left early. */
export async function* records<T>(read: StreamingRead<T>, translate: (error: unknown) => unknown): AsyncGenerator<T> {
  let finished = false
  try {
    for await (const item of read) yield item
    finished = true
  } catch (error) {
    throw translate(error)
  } finally {
    // The call may never have been established (no server), and then there is nothing to cancel.
    if (!finished) await read.cancel().catch(() => undefined)
  }
}

type Entry =
  | { readonly kind: 'record'; readonly record: ClientRecord | undefined }
  | { readonly kind: 'checkpoint'; readonly position: Position }
  | { readonly kind: 'caughtUp' }
  | { readonly kind: 'head'; readonly position: Position }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'ended' }

const HIGH_WATER = 256

/**
 * Everything the client's subscription delivers, in delivery order. Records arrive through
 * 'data'; checkpoints and caughtUp are signalled from inside the client's transform, when records
 * it has already pushed may still sit unread in its buffer. Those signals therefore wait until
 * that many records have come through (received + readableLength is everything pushed so far).
 */
class Inbox {
  private readonly entries: Entry[] = []
  private readonly waiting: { after: number; entry: Entry }[] = []
  private received = 0
  private done = false
  private wake: (() => void) | undefined
  private subscription: AllStreamSubscription | undefined

  attach(subscription: AllStreamSubscription): void {
    this.subscription = subscription
    subscription.on('data', (resolved: AllStreamResolvedEvent) => {
      this.received++
      this.put({ kind: 'record', record: resolved.event })
      this.release()
      if (this.entries.length >= HIGH_WATER) subscription.pause()
    })
    subscription.on('caughtUp', () => this.signal({ kind: 'caughtUp' }))
    subscription.on('error', (error) => this.finish({ kind: 'failed', error }))
    subscription.on('end', () => this.finish({ kind: 'ended' }))
  }

  signal(entry: Entry): void {
    this.waiting.push({ after: this.received + (this.subscription?.readableLength ?? 0), entry })
    this.release()
  }

  finish(entry: Entry): void {
    if (this.done) return
    this.done = true
    this.put(entry)
  }

  /** Whether an entry is ready to be taken. */
  get ready(): boolean {
    return this.entries.length > 0
  }

  /**
   * The next entry; while none has come, a head checkpoint when `idle` gives one first. A rejected
   * `idle` rejects the take.
   */
  async take(idle?: Promise<Position>): Promise<Entry> {
    while (this.entries.length === 0) {
      const woken = new Promise<null>((resolve) => { this.wake = () => resolve(null) })
      try {
        const head = await (idle ? Promise.race([woken, idle]) : woken)
        if (head !== null && this.entries.length === 0) return { kind: 'head', position: head }
      } finally {
        this.wake = undefined
      }
    }
    const entry = this.entries.shift()!
    if (this.subscription?.isPaused() && this.entries.length < HIGH_WATER / 2) this.subscription.resume()
    return entry
  }

  private put(entry: Entry): void {
    this.entries.push(entry)
    this.wake?.()
    this.wake = undefined
  }

  private release(): void {
    while (this.waiting.length > 0 && this.waiting[0]!.after <= this.received) this.put(this.waiting.shift()!.entry)
  }
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Matches only the listed names; `(?!)` never matches, for an empty list. */
const exactly = (names: readonly string[]): string =>
  names.length === 0 ? '^(?!)' : `^(${names.map(escapeRegex).join('|')})$`

/**
 * The server filters on one criterion (event types when given: projectors list them, and they
 * exclude system events too); `accepts` re-checks everything client-side. Always filtering keeps
 * the server sending checkpoints, which it does only for filtered subscriptions.
 */
const serverFilter = (options: SubscribeOptions, onCheckpoint: (position: Position) => void): Filter => {
  const settings = {
    checkpointInterval: options.checkpointInterval ?? 1,
    checkpointReached: (_: AllStreamSubscription, position: Position) => onCheckpoint(position),
  }
  const { eventTypes, streamPrefixes } = options.filter ?? {}
  if (eventTypes) return eventTypeFilter({ regex: exactly(eventTypes), ...settings })
  if (streamPrefixes && streamPrefixes.length > 0) return streamNameFilter({ prefixes: [...streamPrefixes], ...settings })
  if (streamPrefixes) return eventTypeFilter({ regex: exactly([]), ...settings })
  return excludeSystemEvents(settings)
}

const accepts = (filter: SubscriptionFilter | undefined, record: ScanRecord | ClientRecord): boolean =>
  !isSystemRecord(record)
  && (!filter?.eventTypes || filter.eventTypes.includes(record.type))
  && (!filter?.streamPrefixes || filter.streamPrefixes.some((prefix) => record.streamId.startsWith(prefix)))

/** What a subscription needs from the EventStoreDB log. */
export interface SubscriptionSource {
  readonly client: EventStoreDBClient
  headPosition(): Promise<Position | null>
  /** Waits, with the log's other idle subscriptions, for a checkpoint at the head (the log's HeadWatcher). */
  waitIdle(question: IdleQuestion): IdleWait
  isClosed(): boolean
}

/**
 * A catch-up subscription to `$all`, started on first iteration as the embedded one is. It emits
 * `caughtUp` once: when the server says so (server 23.10+), or when delivery reaches the head
 * captured at start, whichever comes first, for servers that never say so.
 *
 * The server sends a filtered subscription a checkpoint only every 32 × interval records it has
 * examined, live or not, so a projection whose filter skips the newest events would stay below
 * the head, and every "wait until projected up to the head" would time out. So, once live and
 * idle, the subscription asks the log's head watcher, which polls the head for all of them and
 * answers with the head once nothing between the last delivery and it passes this filter. Only a
 * real server shows the timing of its own checkpoints; the contract suite checks the outcome on
 * both logs.
 */
export const esdbSubscription = (source: SubscriptionSource, options: SubscribeOptions): Subscription => {
  let stopped = false
  const inbox = new Inbox()

  async function* items(): AsyncGenerator<SubscriptionItem> {
    if (source.isClosed()) return
    const start = options.fromPosition ?? 'start'
    const head = start === 'end' ? null : await source.headPosition()
    if (stopped) return
    let last: Position | null = typeof start === 'object' ? start : null
    let caughtUp = false
    const reachedHead = (): boolean => head === null || (last !== null && comparePositions(last, head) >= 0)
    // The server checkpoints every 32 × interval records examined, so fewer than that lie unseen
    // between the last delivery and the head; twice as many is room enough.
    const scanLimit = 64 * (options.checkpointInterval ?? 1)
    const matches = (record: ScanRecord): boolean => accepts(options.filter, record)
    let afterActivity = true
    const subscription = source.client.subscribeToAll({
      fromPosition: toReadPosition(start),
      filter: serverFilter(options, (position) => inbox.signal({ kind: 'checkpoint', position: fromClientPosition(position) })),
    })
    inbox.attach(subscription)
    try {
      while (!stopped) {
        if (!caughtUp && reachedHead()) {
          caughtUp = true
          yield { kind: 'caughtUp' }
        }
        let idle: IdleWait | undefined
        if (caughtUp && !inbox.ready) idle = source.waitIdle({ last, matches, limit: scanLimit, afterActivity })
        let entry: Entry
        try {
          entry = await inbox.take(idle?.checkpoint)
        } catch (error) {
          if (stopped || source.isClosed()) return
          throw toEventLogError(error)
        } finally {
          idle?.cancel()
        }
        if (stopped) return
        afterActivity = entry.kind !== 'head'
        switch (entry.kind) {
          case 'head':
            if (last === null || comparePositions(entry.position, last) > 0) {
              last = entry.position
              yield { kind: 'checkpoint', position: entry.position }
            }
            break
          case 'record':
            if (!entry.record) break
            if (last === null || comparePositions(positionOf(entry.record), last) > 0) last = positionOf(entry.record)
            if (accepts(options.filter, entry.record)) yield { kind: 'event', event: fromClientRecord(entry.record) }
            break
          case 'checkpoint':
            if (last === null || comparePositions(entry.position, last) > 0) last = entry.position
            yield { kind: 'checkpoint', position: entry.position }
            break
          case 'caughtUp':
            if (!caughtUp) {
              caughtUp = true
              yield { kind: 'caughtUp' }
            }
            break
          case 'failed':
            if (source.isClosed()) return
            throw toEventLogError(entry.error)
          case 'ended':
            if (source.isClosed()) return
            throw new Unavailable('EventStoreDB ended the subscription')
          default:
            entry satisfies never
        }
      }
    } finally {
      // Unsubscribing a subscription whose channel never opened rejects; there is nothing to stop then.
      await subscription.unsubscribe().catch(() => undefined)
    }
  }

  const iterator = items()
  return {
    [Symbol.asyncIterator]: () => iterator,
    async unsubscribe() {
      stopped = true
      inbox.finish({ kind: 'ended' })
      await iterator.return(undefined)
    },
  }
}
