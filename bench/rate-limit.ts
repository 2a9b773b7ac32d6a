/**
 * `taskset -c 0 node dist/bench/rate-limit.js`: what the rate limits cost per request, the
 * hand-made counters (`KeyRateLimiter`) against @fastify/rate-limit's (`windowedLimits`), both with
 * PostHog's two windows and limits far above what is sent, so nothing is refused.
 * - `take`: a personal API key's request counted (peek both windows, count both), called directly.
 * - `peek`: the per-address look at failed authentications that every request pays, called directly.
 * - `inject`: a whole request through `app.inject` to a route that answers `{}`, with a preHandler
 *   hook that counts it by key, against the same app without any limit.
 * Variants run interleaved, 9 rounds each; medians. (`inject` is kept short: every injected request
 * leaves some kilobytes on the heap until its app closes, limit or none.)
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import fastifyRateLimit, { type CreateRateLimitOptions } from '@fastify/rate-limit'
import { KeyRateLimiter, type RateWindow } from '../src/auth/rate-limit.js'

/**
 * The same two-window limits built on @fastify/rate-limit: one `createRateLimit` limiter per
 * window, peeked with `{ increment: false }` and counted only when every window has room, so a
 * refused request counts against none and the longest wait is told, as `KeyRateLimiter` does.
 */
const windowedLimits = async (
  app: FastifyInstance, windows: readonly RateWindow[], keyOf: (request: FastifyRequest) => string, maxKeys: number,
) => {
  if (!app.hasDecorator('createRateLimit')) await app.register(fastifyRateLimit, { global: false })
  const limiters = windows.map((window) =>
    app.createRateLimit({ max: window.limit, timeWindow: window.ms, keyGenerator: keyOf, cache: maxKeys } as CreateRateLimitOptions))
  return {
    async waiting(request: FastifyRequest): Promise<number | null> {
      let wait = 0
      for (const limiter of limiters) {
        const state = await limiter(request, { increment: false })
        if (!state.isAllowed && state.remaining === 0) wait = Math.max(wait, state.ttlInSeconds)
      }
      return wait > 0 ? wait : null
    },
    async count(request: FastifyRequest): Promise<void> {
      for (const limiter of limiters) await limiter(request)
    },
  }
}

const WINDOWS: readonly RateWindow[] = [{ limit: 1e9, ms: 60_000 }, { limit: 1e9, ms: 3_600_000 }]
const KEYS = Array.from({ length: 1000 }, (_, i) => `key-${i}`)
const ROUNDS = 9

const median = (values: number[]): number => values.sort((a, b) => a - b)[values.length >> 1]!

const timeNs = async (count: number, run: (i: number) => unknown): Promise<number> => {
  const start = process.hrtime.bigint()
  for (let i = 0; i < count; i++) await run(i)
  return Number(process.hrtime.bigint() - start) / count
}

/** Runs each variant once per round, in turn, and keeps the median of each. */
const interleaved = async (variants: Record<string, () => Promise<number>>): Promise<Record<string, number>> => {
  const runs: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]))
  for (const run of Object.values(variants)) await run()
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(variants)) runs[name]!.push(await run())
  }
  return Object.fromEntries(Object.entries(runs).map(([name, values]) => [name, median(values)]))
}

const keyOf = (request: FastifyRequest): string => request.principal!.keyId

// Direct calls, on request-like objects (all the library reads of a request: the key and route config).
const requests = KEYS.map((keyId) => ({ principal: { keyId }, routeOptions: { config: {} } }) as unknown as FastifyRequest)
const hand = new KeyRateLimiter(WINDOWS)
const handPeek = new KeyRateLimiter(WINDOWS, 100_000)
const host = Fastify()
const library = await windowedLimits(host, WINDOWS, keyOf, 1_000_000)
const libraryPeek = await windowedLimits(host, WINDOWS, keyOf, 100_000)
const N = 200_000
const direct = await interleaved({
  'take, hand-made': () => timeNs(N, (i) => hand.take(KEYS[i % 1000]!, Date.now())),
  'take, library': () => timeNs(N, async (i) => {
    const request = requests[i % 1000]!
    if (await library.waiting(request) === null) await library.count(request)
  }),
  'peek, hand-made': () => timeNs(N, (i) => handPeek.waiting(KEYS[i % 1000]!, Date.now())),
  'peek, library': () => timeNs(N, (i) => libraryPeek.waiting(requests[i % 1000]!)),
})

// Whole requests through inject.
const appWith = async (limit: (app: FastifyInstance) => Promise<void>): Promise<FastifyInstance> => {
  const app = Fastify()
  app.decorateRequest('principal', null)
  app.addHook('onRequest', (request, _reply, done) => {
    request.principal = { keyId: String(request.headers['x-key']) } as FastifyRequest['principal']
    done()
  })
  await limit(app)
  app.get('/', async () => ({}))
  await app.ready()
  return app
}
const bare = await appWith(async () => {})
const handApp = await appWith(async (app) => {
  const limiter = new KeyRateLimiter(WINDOWS)
  app.addHook('preHandler', (request, _reply, done) => {
    limiter.take(request.principal!.keyId, Date.now())
    done()
  })
})
const libraryApp = await appWith(async (app) => {
  const limits = await windowedLimits(app, WINDOWS, keyOf, 1_000_000)
  app.addHook('preHandler', async (request) => {
    if (await limits.waiting(request) === null) await limits.count(request)
  })
})
const M = 2_000
const inject = (app: FastifyInstance) => () => timeNs(M, (i) => app.inject({ method: 'GET', url: '/', headers: { 'x-key': KEYS[i % 1000]! } }))
const whole = await interleaved({ 'inject, no limit': inject(bare), 'inject, hand-made': inject(handApp), 'inject, library': inject(libraryApp) })

for (const [name, ns] of Object.entries({ ...direct, ...whole })) process.stdout.write(`${name.padEnd(20)} ${ns.toFixed(0).padStart(7)} ns per request\n`)
const extra = (name: string) => whole[`inject, ${name}`]! - whole['inject, no limit']!
process.stdout.write(`over no limit, per request: hand-made ${extra('hand-made').toFixed(0)} ns, library ${extra('library').toFixed(0)} ns\n`)
