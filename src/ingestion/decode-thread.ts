import { parentPort } from 'node:worker_threads'
import { runDecodeJob, type DecodeJob } from './decode-job.js'
import { CaptureError } from './errors.js'
import type { DecodedOnThread, ToDecodeThread } from './decode-pool.js'

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

const answer = async (job: DecodeJob): Promise<DecodedOnThread> => {
  try {
    const { request, textBytes, digest } = await runDecodeJob(job)
    const { shape, batchToken, historicalMigration, sentAt } = request
    return { ok: true, shape, batchToken, historicalMigration, sentAt, textBytes, digest, chunks: chunksOf(request.events) }
  } catch (error) {
    if (error instanceof CaptureError) return { ok: false, status: error.status, code: error.code, message: error.message }
    throw error
  }
}

parentPort!.on('message', (message: ToDecodeThread) => {
  void answer(message.job).then(
    (result) => parentPort!.postMessage({ id: message.id, result }),
    (error: unknown) => parentPort!.postMessage({ id: message.id, failure: error instanceof Error ? error.message : String(error) }),
  )
})
