import { once } from 'node:events'
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads'
import { move, transferableSymbol, valueSymbol } from 'piscina'
import { lowerThreadPriority } from '../kernel/thread-priority.js'
import { runDecodeJob, type DecodeJob } from './decode-job.js'
import { CaptureError } from '../http/capture-error.js'
import type { CaptureRequest } from './payload.js'
import { prepareCapture, refusalOf, type PrepareContext, type PreparedCapture, type Refusal } from './prepare.js'

/**
 * A heavy request is decoded at a lower priority than the main thread's work, so that on a busy
 * CPU the light requests (health, decide, single events) are answered first. piscina loads this
 * module as a thread starts, before its first task. Not being allowed to lower it changes nothing
 * else.
 */
const DECODE_NICE = 10
lowerThreadPriority(DECODE_NICE)

/** One heavy request for a decoding thread (piscina's task). */
export interface DecodeTask {
  readonly job: DecodeJob
  /** A realtime request is also normalised and packed on the thread with it. */
  readonly prepare: PrepareContext
  /**
   * The thread says here when it starts the request, and is told when the request's turn on the
   * event loop comes (see `DecodePool.inTurn`), or that it was abandoned before it started.
   */
  readonly turn: MessagePort
}

/** What the event loop tells the thread of a request. */
export type ToThread = 'send' | 'abandon'

export type DecodedOnThread =
  | ({ readonly ok: true; readonly textBytes: number; readonly digest: string | null; readonly chunks: string[] } & Omit<CaptureRequest, 'events'>)
  | { readonly ok: true; readonly prepared: PreparedCapture }
  | ({ readonly ok: false } & Refusal)

/** Largest JSON text of one chunk of events sent back: small enough to parse in a moment. */
const CHUNK_CHARS = 64 * 1024

/**
 * The request's events as JSON arrays of modest size, so that the event loop can parse them a
 * chunk at a time instead of receiving (and deserialising) one object graph in a single step.
 */
const chunksOf = (events: readonly unknown[]): string[] => {
  const chunks: string[] = []
  let current: string[] = []
  let chars = 0
  for (const event of events) {
    const json = JSON.stringify(event)
    if (current.length > 0 && chars + json.length > CHUNK_CHARS) {
      chunks.push(`[${current.join(',')}]`)
      current = []
      chars = 0
    }
    current.push(json)
    chars += json.length + 1
  }
  if (current.length > 0) chunks.push(`[${current.join(',')}]`)
  return chunks
}

/** A realtime request comes back normalised and packed; a historical one as its events. */
const answer = async (job: DecodeJob, prepare: PrepareContext): Promise<DecodedOnThread> => {
  try {
    const decoded = await runDecodeJob(job)
    const { request, textBytes, digest } = decoded
    if (!request.historicalMigration) return { ok: true, prepared: prepareCapture(decoded, prepare) }
    const { shape, batchToken, historicalMigration, sentAt } = request
    return { ok: true, shape, batchToken, historicalMigration, sentAt, textBytes, digest, chunks: chunksOf(request.events) }
  } catch (error) {
    if (error instanceof CaptureError) return { ok: false, ...refusalOf(error) }
    throw error
  }
}

/**
 * Decodes a heavy request at once, then keeps what it decoded on this thread until the request's
 * turn comes, so the event loop holds no more decoded requests than it writes at a time. A
 * refusal is small and goes back at once, which frees the thread for the next request. The packed
 * events move to the event loop without being copied.
 */
export default async function decodeInTurn({ job, prepare, turn }: DecodeTask) {
  try {
    turn.postMessage('started')
    // The request's turn may have come before a thread was free; or it was abandoned meanwhile.
    const early = receiveMessageOnPort(turn)?.message as ToThread | undefined
    if (early === 'abandon') return null
    const result = await answer(job, prepare)
    if (!result.ok) return result
    const [told] = early === undefined ? await once(turn, 'message') as [ToThread] : [early]
    if (told === 'abandon') return null
    const packs = 'prepared' in result ? result.prepared.packs.map((pack) => pack.buffer as ArrayBuffer) : []
    return move({ [transferableSymbol]: packs, [valueSymbol]: result })
  } finally {
    turn.close()
  }
}
