import { parentPort } from 'node:worker_threads'
import { lowerThreadPriority } from '../kernel/thread-priority.js'
import { runDecodeJob, type DecodeJob } from './decode-job.js'
import { CaptureError } from '../http/capture-error.js'
import { prepareCapture, refusalOf } from './prepare.js'
import type { DecodedOnThread, SendHeld, ToDecodeThread } from './decode-pool.js'

/**
 * A heavy request is decoded at a lower priority than the main thread's work, so that on a busy
 * CPU the light requests (health, decide, single events) are answered first. Not being allowed
 * to lower it changes nothing else.
 */
const DECODE_NICE = 10
lowerThreadPriority(DECODE_NICE)

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
const answer = async ({ job, prepare }: ToDecodeThread): Promise<DecodedOnThread> => {
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

/** Results kept until the pool asks for them, in the request's turn (see `DecodePool.inTurn`). */
const held = new Map<number, Promise<DecodedOnThread>>()

const send = (id: number, result: Promise<DecodedOnThread>): void => {
  void result.then(
    (answer) => parentPort!.postMessage({ id, result: answer }, 'prepared' in answer ? answer.prepared.packs.map((pack) => pack.buffer as ArrayBuffer) : []),
    (error: unknown) => parentPort!.postMessage({ id, failure: error instanceof Error ? error.message : String(error) }),
  )
}

parentPort!.on('message', (message: ToDecodeThread | SendHeld) => {
  if ('send' in message) {
    const result = held.get(message.send)
    held.delete(message.send)
    if (result) send(message.send, result)
  } else {
    const result = answer(message)
    // A failure is reported when the result is asked for, not as an unhandled rejection.
    result.catch(() => undefined)
    held.set(message.id, result)
  }
})
