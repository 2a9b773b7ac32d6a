import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { Piscina } from 'piscina'
import type { DecodedRequest, DecodeJob } from './decode-job.js'
import type { DecodedOnThread, DecodeTask, ToThread } from './decode-thread.js'
import { internalError, tooLarge, unavailable } from './errors.js'
import { CaptureError } from '../http/capture-error.js'
import { eventsOfChunks } from './chunks.js'
import { returnFreeMemory } from '../kernel/free-memory.js'
import type { PrepareContext, PreparedCapture } from './prepare.js'

/** A decoded request, or a realtime one ready to write. */
export type Prepared = DecodedRequest | { readonly prepared: PreparedCapture }

export interface DecodePoolOptions {
  /** Threads, and so heavy requests decoded at once, at most. Default 2. */
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
   * their turn on their threads, decoded, or for a thread. Each one's packed events (up to 20 MiB) stay on the
   * loop until they are written, and V8 collects the loop's young generation whenever it holds
   * more than 32 MiB of such memory. Default 1.
   */
  readonly inFlight?: number
  /**
   * Heavy requests the pool holds at once, at most: queued for a thread, decoding, decoded and
   * waiting for their turn, or being written. Each may hold some 40 MiB (its body, its text, its
   * events) until it is written, so past this a heavy request is refused with a retryable 503
   * instead of growing the process's memory without bound. Default 8.
   */
  readonly maxHeld?: number
}

/** What a failed thread means for the request it was decoding, or for those waiting for a thread. */
const failureOf = (error: unknown): CaptureError => {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooLarge('decoding the request needs too much memory') : internalError()
}

/** A request sent to the threads, until a thread has started it. */
interface Unstarted { abandon(error: CaptureError): void }

/**
 * Decoding threads (piscina) for heavy capture requests: inflating and parsing up to 20 MiB of
 * JSON costs far more than the event loop may be held for. Threads start when needed and stop
 * when idle; a thread decodes one request at a time and keeps it until its turn.
 */
export class DecodePool {
  private readonly threads: Piscina<DecodeTask, DecodedOnThread | null>
  private readonly inFlight: number
  private readonly maxHeld: number
  private running = 0
  private held = 0
  private readonly waiting: (() => void)[] = []
  private readonly unstarted = new Set<Unstarted>()

  constructor(options: DecodePoolOptions = {}) {
    this.inFlight = Math.max(1, options.inFlight ?? 1)
    this.maxHeld = Math.max(this.inFlight, options.maxHeld ?? 8)
    this.threads = new Piscina({
      filename: new URL('./decode-thread.js', import.meta.url).href,
      minThreads: 0,
      maxThreads: Math.max(1, options.threads ?? 2),
      idleTimeout: options.idleMs ?? 2000,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? 1024 },
      recordTiming: false,
      // Requests must reach the threads in the order of their turns: a thread keeps a decoded
      // request until its turn, so were a later one to take the last free thread while an earlier
      // one waits for a thread, every thread would wait for a turn that can never come.
      stricterFIFO: true,
    })
    // A thread failed with no request on it: it could not start. piscina keeps the requests that
    // waited for it queued until another request starts a thread, so they are refused now, as a
    // request on a failed thread is.
    this.threads.on('error', (error: unknown) => {
      for (const request of [...this.unstarted]) request.abandon(failureOf(error))
    })
    // The memory a decoding thread used is the allocator's once the thread is gone.
    this.threads.on('workerCreate', ({ id }: { id: number }) => {
      this.threads.threads.find((worker) => worker.threadId === id)?.once('exit', () => returnFreeMemory())
    })
  }

  /**
   * Decodes on a thread as soon as one is free, but brings the result onto this loop and runs
   * `write` with it only in its turn: at most `inFlight` requests' results are held here at a
   * time, while the others wait on their threads, decoded, or for a thread. Turns come in
   * arrival order.
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

  private async heldInTurn<T>(job: DecodeJob, prepare: PrepareContext, write: (decoded: Prepared) => Promise<T>): Promise<T> {
    const { turn, result } = this.start(job, prepare)
    // Settled while it waits for its turn (a refusal, a thread that failed): handled when the turn comes.
    result.catch(() => undefined)
    if (this.running >= this.inFlight) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.running++
    try {
      turn.postMessage('send' satisfies ToThread)
      const decoded = await result.finally(() => turn.close())
      return await write(await this.finish(decoded))
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }

  /** Sends a request to the threads; `turn` tells its thread when to send the result back. */
  private start(job: DecodeJob, prepare: PrepareContext): { turn: MessagePort; result: Promise<DecodedOnThread> } {
    const { port1: turn, port2 } = new MessageChannel()
    let refuse: (error: CaptureError) => void = () => undefined
    const abandoned = new Promise<never>((_, reject) => { refuse = reject })
    const request: Unstarted = {
      abandon: (error) => {
        // Its task stays queued; the thread that takes it finds this first and skips the work.
        turn.postMessage('abandon' satisfies ToThread)
        refuse(error)
      },
    }
    this.unstarted.add(request)
    const started = (): void => { this.unstarted.delete(request) }
    turn.once('message', started)
    // Null only for a request abandoned before its thread started it, which nothing awaits any more.
    const decoded = this.threads.run({ job, prepare, turn: port2 }, { transferList: [port2] }).then(
      (result) => result as DecodedOnThread,
      (error: unknown) => { throw failureOf(error) },
    )
    const result = Promise.race([decoded, abandoned]).finally(() => {
      started()
      turn.off('message', started)
    })
    return { turn, result }
  }

  private async finish(result: DecodedOnThread): Promise<Prepared> {
    if (!result.ok) throw new CaptureError(result.status, result.code, result.message)
    if ('prepared' in result) return { prepared: result.prepared }
    const { chunks, textBytes, digest, ...request } = result
    return { request: { ...request, events: await eventsOfChunks(chunks) }, textBytes, digest }
  }

  /** Stops every thread; pending requests fail. */
  async close(): Promise<void> {
    await this.threads.destroy()
  }
}
