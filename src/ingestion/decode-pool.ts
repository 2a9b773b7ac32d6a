import { Worker } from 'node:worker_threads'
import type { DecodeJob, DecodedRequest } from './decode-job.js'
import { internalError, tooLarge, unavailable } from './errors.js'
import { CaptureError } from '../http/capture-error.js'
import { eventsOfChunks } from './chunks.js'
import { returnFreeMemory } from '../kernel/free-memory.js'
import type { CaptureRequest } from './payload.js'
import type { PrepareContext, PreparedCapture, Refusal } from './prepare.js'

export interface ToDecodeThread {
  readonly id: number
  readonly job: DecodeJob
  /** A realtime request is also normalised and packed on the thread with it. */
  readonly prepare: PrepareContext
}

/** Asks a thread for the result of a job, which it keeps until asked. */
export interface SendHeld { readonly send: number }

export type DecodedOnThread =
  | ({ readonly ok: true; readonly textBytes: number; readonly digest: string | null; readonly chunks: string[] } & Omit<CaptureRequest, 'events'>)
  | { readonly ok: true; readonly prepared: PreparedCapture }
  | ({ readonly ok: false } & Refusal)

/** A decoded request, or a realtime one ready to write. */
export type Prepared = DecodedRequest | { readonly prepared: PreparedCapture }

type FromDecodeThread = { readonly id: number; readonly result: DecodedOnThread } | { readonly id: number; readonly failure: string }

interface Pending { resolve(result: DecodedOnThread): void; reject(error: Error): void }

interface DecodeThread { readonly worker: Worker; readonly pending: Map<number, Pending>; idle: NodeJS.Timeout | null }

export interface DecodePoolOptions {
  /** Threads decoding at once, at most. Default 2. */
  readonly threads?: number
  /**
   * A thread with nothing to do for this long exits, and the memory it freed is given back to
   * the system. Default 2 s.
   */
  readonly idleMs?: number
  /** Heap one decoding thread may use; a request that needs more is refused with 413. Default 1 GiB. */
  readonly heapMb?: number
  /**
   * Heavy requests whose results are held by the event loop at once, at most; the others wait
   * their turn, decoded, on their threads. Each one's packed events (up to 20 MiB) stay on the
   * loop until they are written, and V8 collects the loop's young generation whenever it holds
   * more than 32 MiB of such memory. Default 1.
   */
  readonly inFlight?: number
  /**
   * Heavy requests the pool holds at once, at most: sent to a thread, decoding, decoded and
   * waiting for their turn, or being written. Each may hold some 40 MiB (its body, its text, its
   * events) until it is written, so past this a heavy request is refused with a retryable 503
   * instead of growing the process's memory without bound. Default 8.
   */
  readonly maxHeld?: number
}

/**
 * Decoding threads for heavy capture requests: inflating and parsing up to 20 MiB of JSON costs
 * far more than the event loop may be held for. Threads start when needed and stop when idle.
 */
export class DecodePool {
  private readonly threads: DecodeThread[] = []
  private nextId = 1
  private readonly size: number
  private readonly idleMs: number
  private readonly heapMb: number
  private readonly inFlight: number
  private readonly maxHeld: number
  private running = 0
  private held = 0
  private readonly waiting: (() => void)[] = []

  constructor(options: DecodePoolOptions = {}) {
    this.size = Math.max(1, options.threads ?? 2)
    this.idleMs = options.idleMs ?? 2000
    this.heapMb = options.heapMb ?? 1024
    this.inFlight = Math.max(1, options.inFlight ?? 1)
    this.maxHeld = Math.max(this.inFlight, options.maxHeld ?? 8)
  }

  /**
   * Decodes on a thread at once, but brings the result onto this loop and runs `write` with it
   * only in its turn: at most `inFlight` requests' results are held here at a time, while the
   * others wait, decoded, on their threads.
   */
  async inTurn<T>(job: DecodeJob, context: PrepareContext, write: (decoded: Prepared) => Promise<T>): Promise<T> {
    if (this.held >= this.maxHeld) throw unavailable()
    this.held++
    try {
      return await this.heldInTurn(job, context, write)
    } finally {
      this.held--
    }
  }

  private async heldInTurn<T>(job: DecodeJob, context: PrepareContext, write: (decoded: Prepared) => Promise<T>): Promise<T> {
    const { thread, id, result } = this.start(job, context)
    // Settled while it waits for its turn (a thread that failed): handled when the turn comes.
    result.catch(() => undefined)
    if (this.running >= this.inFlight) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.running++
    try {
      if (thread.pending.has(id)) thread.worker.postMessage({ send: id } satisfies SendHeld)
      return await write(await this.finish(await result))
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }

  private async finish(result: DecodedOnThread): Promise<Prepared> {
    if (!result.ok) throw new CaptureError(result.status, result.code, result.message)
    if ('prepared' in result) return { prepared: result.prepared }
    const { chunks, textBytes, digest, ...request } = result
    return { request: { ...request, events: await eventsOfChunks(chunks) }, textBytes, digest }
  }

  /** Stops every thread; pending requests fail. */
  async close(): Promise<void> {
    await Promise.all(this.threads.splice(0).map((thread) => thread.worker.terminate()))
  }

  private start(job: DecodeJob, prepare: PrepareContext): { thread: DecodeThread; id: number; result: Promise<DecodedOnThread> } {
    const thread = this.pick()
    if (thread.idle) clearTimeout(thread.idle)
    thread.idle = null
    const id = this.nextId++
    const result = new Promise<DecodedOnThread>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject })
      thread.worker.postMessage({ id, job, prepare } satisfies ToDecodeThread)
    })
    return { thread, id, result }
  }

  private pick(): DecodeThread {
    const quiet = this.threads.reduce<DecodeThread | null>((best, t) => (best === null || t.pending.size < best.pending.size ? t : best), null)
    if (quiet && (quiet.pending.size === 0 || this.threads.length >= this.size)) return quiet
    return this.spawn()
  }

  private spawn(): DecodeThread {
    const worker = new Worker(new URL('./decode-thread.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: this.heapMb } })
    worker.unref()
    const thread: DecodeThread = { worker, pending: new Map(), idle: null }
    this.threads.push(thread)
    worker.on('message', (message: FromDecodeThread) => {
      const pending = thread.pending.get(message.id)
      thread.pending.delete(message.id)
      if ('result' in message) pending?.resolve(message.result)
      else pending?.reject(internalError())
      if (thread.pending.size === 0) this.idleOut(thread)
    })
    worker.on('error', (error: Error & { code?: string }) => this.fail(thread, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooLarge('decoding the request needs too much memory') : internalError()))
    worker.on('exit', () => this.fail(thread, internalError()))
    return thread
  }

  private idleOut(thread: DecodeThread): void {
    thread.idle = setTimeout(() => {
      if (thread.pending.size > 0) return
      this.threads.splice(this.threads.indexOf(thread), 1)
      void thread.worker.terminate().then(() => returnFreeMemory())
    }, this.idleMs)
    thread.idle.unref()
  }

  private fail(thread: DecodeThread, error: CaptureError): void {
    const at = this.threads.indexOf(thread)
    if (at >= 0) this.threads.splice(at, 1)
    if (thread.idle) clearTimeout(thread.idle)
    for (const pending of thread.pending.values()) pending.reject(error)
    thread.pending.clear()
  }
}
