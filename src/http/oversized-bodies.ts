import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'

/**
 * How much of a body past its route's limit is read and thrown away before the 413 is sent. A
 * client that is still writing when the server closes gets a reset instead of the answer
 * (`EPIPE` in Node's fetch), so an SDK that halves its batch on 413 would only see a network
 * error; reading on lets it finish writing and read the 413. Beyond this the connection is closed
 * at once, so a client cannot make the server read without end.
 */
export const DISCARDED_BODY_BYTES = 64 * 1024 * 1024

const expectsContinue = (request: FastifyRequest): boolean => /^100-continue$/i.test(String(request.headers.expect ?? '').trim())

const declaredLength = (request: FastifyRequest): number | null => {
  const header = request.headers['content-length']
  return header === undefined || !/^\d+$/.test(header) ? null : Number(header)
}

/** Reads and drops the rest of a body, resolving once it has ended, or once more than `most` bytes have come. */
const discard = (incoming: IncomingMessage, most: number): Promise<void> => new Promise((resolve) => {
  if (incoming.complete || incoming.destroyed) return resolve()
  let read = 0
  const finish = (): void => {
    incoming.off('data', counted).off('end', finish).off('close', finish).off('error', finish)
    resolve()
  }
  const counted = (chunk: Buffer): void => {
    read += chunk.length
    if (read > most) finish()
  }
  incoming.on('data', counted).on('end', finish).on('close', finish).on('error', finish)
  incoming.resume()
})

/**
 * Answers bodies over a route's `bodyLimit` so that every client reads the 413: a client that
 * sends `Expect: 100-continue` with a `Content-Length` over the limit is answered before it sends
 * the body (and told to go on only when the length fits); a client that sends the body anyway
 * has up to `DISCARDED_BODY_BYTES` of it read before the answer. Install before the routes.
 */
export const answerOversizedBodies = (app: FastifyInstance, discardedBytes = DISCARDED_BODY_BYTES): void => {
  const toldToContinue = new WeakSet<IncomingMessage>()
  // With a listener here Node no longer sends `100 Continue` by itself; the request is served as any other.
  app.server.on('checkContinue', (incoming, response) => app.server.emit('request', incoming, response))
  app.addHook('preParsing', (request, reply, payload, done) => {
    const length = declaredLength(request)
    if (expectsContinue(request) && !(length !== null && length > request.routeOptions.bodyLimit)) {
      toldToContinue.add(request.raw)
      reply.raw.writeContinue()
    }
    done(null, payload)
  })
  app.addHook('onError', async (request, _reply, error) => {
    if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return
    // Told to wait, the client sends nothing more: answer now.
    if (expectsContinue(request) && !toldToContinue.has(request.raw)) return
    const length = declaredLength(request)
    if (length !== null && length > discardedBytes) return
    await discard(request.raw, discardedBytes)
  })
}
