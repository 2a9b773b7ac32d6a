import { Worker } from 'node:worker_threads'
import type { Config } from '../../src/config.js'
import { comparePositions, positionFromString, type Position } from '../../src/eventlog/port.js'
import type { ProjectionHandle, Projections, ProjectionStatus, QuarantinedEvent } from '../../src/readstore/projections.js'
import type { Projector } from '../../src/readstore/projector.js'
import { PositionWaiters } from '../waiters.js'
import { Signal } from '../signal.js'
import type { Call, FromThread, ThreadData, ToThread } from './messages.js'

export interface ThreadedProjectionsOptions {
  readonly config: Config
  readonly projectors: readonly Projector[]
  readonly threads: number
  readonly log: (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void
}

/**
 * How long a status request waits for a busy thread before answering from what this thread
 * knows: health must answer within a few milliseconds, however busy the projections are.
 */
const STATUS_WAIT_MS = 5

const within = <T>(ms: number, work: Promise<T>): Promise<T | null> =>
  Promise.race([work.catch(() => null), new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref())])

/** A projector's share of the threads' work: its own figure, or a little for a management projector. */
const weightOf = (projector: Projector): number => projector.threadWeight ?? 0.1

/**
 * The young generation of a projection thread: three semi-spaces' worth, so each semi-space holds
 * 32 MiB instead of V8's 16. A batch's parsed capture requests and documents die young then,
 * instead of being promoted and collected again in the old generation: about a tenth less CPU
 * for persons and sessions run alone in one process.
 */
const YOUNG_GENERATION_MB = 96

/** Splits projectors into `count` groups of about equal weight, heaviest first. */
const spread = (projectors: readonly Projector[], count: number): string[][] => {
  const groups = Array.from({ length: count }, () => ({ weight: 0, names: [] as string[] }))
  const ordered = [...projectors].sort((a, b) => weightOf(b) - weightOf(a))
  for (const projector of ordered) {
    const lightest = groups.reduce((a, b) => (b.weight < a.weight ? b : a))
    lightest.names.push(projector.name)
    lightest.weight += weightOf(projector)
  }
  return groups.filter((group) => group.names.length > 0).map((group) => group.names)
}

/**
 * The projectors of each of `count` threads. With three threads or more, the projections of
 * management writes (dashboards, flags, keys…) get one to themselves, so a write's answer, which
 * waits for its projection, never waits behind a thread's backlog of captured events; the
 * captured-event projectors share the others by weight. With fewer, all share by weight.
 */
export const shareOut = (projectors: readonly Projector[], count: number): string[][] => {
  const captured = projectors.filter((projector) => projector.threadWeight !== undefined)
  const management = projectors.filter((projector) => projector.threadWeight === undefined)
  if (count < 3 || captured.length === 0 || management.length === 0) return spread(projectors, count)
  return [...spread(captured, count - 1), management.map((projector) => projector.name)]
}

/** The event types the projectors named `names` read. */
export const readsOf = (projectors: readonly Projector[], names: readonly string[]): ReadonlySet<string> =>
  new Set(projectors.filter((projector) => names.includes(projector.name)).flatMap((projector) => projector.handles))

/** Whether a thread whose projectors read `reads` should look at a commit of `types` (unknown: any). */
export const wakes = (reads: ReadonlySet<string>, types: ReadonlySet<string> | undefined): boolean => {
  if (types === undefined) return reads.size > 0
  for (const type of types) if (reads.has(type)) return true
  return false
}

/** A projection run by a thread, as queries see it: the position this thread was told it reached. */
class WaitersHandle implements ProjectionHandle {
  constructor(private readonly waiters: PositionWaiters) {}

  get position(): Position | null {
    return this.waiters.position
  }

  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    return this.waiters.wait(position, timeoutMs)
  }
}

interface Thread {
  readonly worker: Worker
  readonly names: readonly string[]
  /** The event types its projectors read. */
  readonly reads: ReadonlySet<string>
  readonly replies: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>
}

/**
 * Runs the projections in worker threads, off the HTTP event loop: each thread opens its own
 * connections to the stores and runs a share of the projectors. This thread keeps, per projection,
 * the position it has reached (for read-your-writes) and forwards status and rebuild requests.
 */
export class ThreadedProjections implements Projections {
  private readonly threads: Thread[] = []
  private readonly waiters = new Map<string, PositionWaiters>()
  /** What queries see of each projection's waiters: one handle each, read on every query. */
  private readonly handles = new Map<string, ProjectionHandle>()
  private readonly owners = new Map<string, Thread>()
  private readonly live = new Set<string>()
  /** Each projection's last full status from its thread. */
  private readonly reported = new Map<string, ProjectionStatus>()
  private readonly liveSignal = new Signal()
  private nextId = 1
  private stopping = false

  constructor(private readonly options: ThreadedProjectionsOptions) {
    for (const projector of options.projectors) {
      const waiters = new PositionWaiters()
      this.waiters.set(projector.name, waiters)
      this.handles.set(projector.name, new WaitersHandle(waiters))
    }
  }

  async start(): Promise<void> {
    const shares = shareOut(this.options.projectors, Math.max(1, this.options.threads))
    await Promise.all(shares.map((names) => this.spawn(names)))
  }

  private spawn(names: readonly string[]): Promise<void> {
    const data: ThreadData = { config: this.options.config, projectors: names }
    const worker = new Worker(new URL('./thread.js', import.meta.url), { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } })
    const thread: Thread = { worker, names, reads: readsOf(this.options.projectors, names), replies: new Map() }
    this.threads.push(thread)
    for (const name of names) this.owners.set(name, thread)
    return new Promise((resolve, reject) => {
      worker.on('message', (message: FromThread) => {
        if (message.type === 'started') resolve()
        else this.receive(thread, message)
      })
      worker.on('error', (error: unknown) => {
        const message = error instanceof Error ? error.message : String((error as { message?: unknown })?.message ?? error)
        this.options.log('error', { err: message, projections: names }, 'projection thread failed')
        reject(new Error(`projection thread for ${names.join(', ')} failed: ${message}`))
      })
      worker.on('exit', (code) => {
        for (const name of names) this.live.delete(name)
        for (const reply of thread.replies.values()) reply.reject(new Error('projection thread exited'))
        thread.replies.clear()
        if (!this.stopping) {
          this.options.log('error', { code, projections: names }, 'projection thread exited; starting it again')
          this.threads.splice(this.threads.indexOf(thread), 1)
          setTimeout(() => void this.spawn(names).catch(() => undefined), 1000).unref()
        }
      })
    })
  }

  private receive(thread: Thread, message: FromThread): void {
    switch (message.type) {
      case 'advanced': {
        const waiters = this.waiters.get(message.name)!
        const position = positionFromString(message.position)
        if (!waiters.position || comparePositions(position, waiters.position) > 0) waiters.advance(position)
        return
      }
      case 'live':
        this.live.add(message.name)
        this.liveSignal.notify()
        return
      case 'log': return this.options.log(message.level, message.fields, message.message)
      case 'reply': {
        const reply = thread.replies.get(message.id)
        thread.replies.delete(message.id)
        if (message.error !== undefined) reply?.reject(new Error(message.error))
        else reply?.resolve(message.value)
        return
      }
      case 'started': return
    }
  }

  private request<T>(thread: Thread, call: Call): Promise<T> {
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      thread.replies.set(id, { resolve: resolve as (value: unknown) => void, reject })
      thread.worker.postMessage({ ...call, type: 'request', id } satisfies ToThread)
    })
  }

  /**
   * A commit of events of `types` (unknown: any) landed in the event log: the subscriptions of the
   * threads that read any of them look now, not at their next poll. The others are left alone, so
   * a stream of captured events never wakes the projections of management writes.
   */
  wake(types?: ReadonlySet<string>): void {
    for (const thread of this.threads) if (wakes(thread.reads, types)) thread.worker.postMessage({ type: 'wake' } satisfies ToThread)
  }

  activeRunner(name: string): ProjectionHandle | null {
    return this.handles.get(name) ?? null
  }

  catchingUp(): readonly string[] {
    return this.options.projectors.map((projector) => projector.name).filter((name) => !this.live.has(name))
  }

  allCaughtUp(): boolean {
    return this.live.size === this.options.projectors.length
  }

  whenCaughtUp(timeoutMs: number): Promise<boolean> {
    return this.liveSignal.wait(() => this.catchingUp().length === 0, timeoutMs)
  }

  /**
   * Each thread's own report, or, from a thread too busy to answer within `STATUS_WAIT_MS` (a long
   * batch holds its loop), what this thread knows: the position reached, whether it is live, and
   * the rest as last reported (a late answer still updates what was last reported).
   */
  async status(): Promise<Record<string, ProjectionStatus>> {
    const threads = [...this.threads]
    const parts = await Promise.all(threads.map((thread) => within(STATUS_WAIT_MS, this.request<Record<string, ProjectionStatus>>(thread, { call: 'status' }).then((part) => {
      for (const name of thread.names) if (part[name]) this.reported.set(name, part[name])
      return part
    }))))
    const merged: Record<string, ProjectionStatus> = {}
    for (const [index, part] of parts.entries()) {
      for (const name of threads[index]!.names) merged[name] = part?.[name] ?? this.fromHere(name)
    }
    return merged
  }

  private fromHere(name: string): ProjectionStatus {
    const projector = this.options.projectors.find((p) => p.name === name)!
    const last = this.reported.get(name) ?? {
      version: projector.version, build: 0, status: 'starting', position: null, lag: 0, rebuilding: null, quarantined: 0, stalled: false, error: null, head: null,
    }
    const position = this.waiters.get(name)?.position
    return { ...last, status: this.live.has(name) ? 'live' : 'catching_up', position: position ? position.commit.toString() : last.position }
  }

  async quarantined(): Promise<QuarantinedEvent[]> {
    return (await Promise.all(this.threads.map((thread) => this.request<QuarantinedEvent[]>(thread, { call: 'quarantined' })))).flat()
  }

  async rebuild(name: string): Promise<void> {
    const thread = this.owners.get(name)
    if (!thread) throw new TypeError(`unknown projection: ${name}`)
    await this.request(thread, { call: 'rebuild', name })
  }

  async stop(): Promise<void> {
    this.stopping = true
    await Promise.all(this.threads.map(async (thread) => {
      await this.request(thread, { call: 'stop' }).catch(() => undefined)
      await thread.worker.terminate()
    }))
    for (const waiters of this.waiters.values()) waiters.release()
  }
}
