import type { FastifyInstance } from 'fastify'

/** The stores a process has not reached yet since it started, in words (`the event log (EventStoreDB at …)`). */
export interface StoreWaits {
  missing(): readonly string[]
}

/** A request that needs a store the process is still waiting for: 503 with `Retry-After`, never logged as a failure. */
export class StoresNotReached extends Error {
  override name = 'StoresNotReached'
  readonly retryAfter = 2
  constructor(readonly missing: readonly string[]) {
    super(`waiting for ${missing.join(' and ')}`)
  }
}

/**
 * Until every store has answered once, each request that would use one is refused at once with
 * StoresNotReached, in its route's error shape, instead of waiting for a server that is not there.
 * Health, preflights and unknown paths need no store and go on.
 */
export const awaitStores = (app: FastifyInstance, waits: StoreWaits): void => {
  // Once every store has answered, none is waited for again: later requests pass without a look.
  let reached = false
  app.addHook('onRequest', (request, _reply, done) => {
    if (reached) return done()
    const missing = waits.missing()
    reached = missing.length === 0
    if (reached || request.method === 'OPTIONS' || request.routeOptions.url === undefined || request.routeOptions.url === '/_health') return done()
    done(new StoresNotReached(missing))
  })
}
