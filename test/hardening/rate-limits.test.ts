import t, { type Test } from 'tap'
import { buildApp } from '../../src/app.js'
import { KeyRateLimiter, parseRateLimits } from '../../src/auth/rate-limit.js'
import { world } from '../support/world.js'

/** A request of `key` (by default the world's): its Retry-After when refused, else its status. */
const waitOf = (w: Awaited<ReturnType<typeof world>>) => async (key = w.key.value): Promise<number> => {
  const response = await w.app.inject({ method: 'GET', url: '/api/users/@me/', headers: w.bearer(key) })
  return response.statusCode === 429 ? Number(response.headers['retry-after']) : response.statusCode
}

t.test('limits read as PostHog states them, or off', async (t) => {
  t.same(parseRateLimits('480/minute,4800/hour'), [{ limit: 480, ms: 60_000 }, { limit: 4800, ms: 3_600_000 }])
  t.same(parseRateLimits('off'), [])
  for (const bad of ['', 'fast', '0/minute', '10/fortnight', '10/minute,']) t.equal(parseRateLimits(bad), null, bad)
})

t.test('a key gets its burst, then waits for its window; other keys are counted apart', async (t) => {
  const limiter = new KeyRateLimiter([{ limit: 3, ms: 60_000 }, { limit: 5, ms: 3_600_000 }])
  const start = 1_000_000
  t.same([limiter.take('a', start), limiter.take('a', start + 1), limiter.take('a', start + 2)], [null, null, null])
  t.equal(limiter.take('a', start + 10_000), 50, 'the burst window reopens 50 s later')
  t.equal(limiter.take('b', start + 10_000), null, 'another key has its own count')
  t.equal(limiter.take('a', start + 60_000), null)
  t.equal(limiter.take('a', start + 60_001), null)
  t.equal(limiter.take('a', start + 60_002), 3_540, 'the sustained window is used up: wait for the hour')
  t.equal(limiter.take('a', start + 3_600_000), null)
})

t.test('over HTTP: 429 throttled_error with Retry-After, only for management routes', async (t) => {
  const w = await world(t)
  const app = await buildApp({ log: w.log, store: w.store, models: w.models, projections: w.projections, roles: ['api', 'ingest'], rateLimits: [{ limit: 2, ms: 60_000 }] })
  t.teardown(() => app.close())
  const me = () => app.inject({ method: 'GET', url: '/api/users/@me/', headers: w.bearer(w.key.value) })
  t.equal((await me()).statusCode, 200)
  t.equal((await me()).statusCode, 200)
  const refused = await me()
  t.equal(refused.statusCode, 429)
  t.match(refused.headers['retry-after'], /^\d+$/)
  t.match(refused.json(), { type: 'throttled_error', code: 'throttled', detail: /^Request was throttled\. Expected available in \d+ seconds?\.$/, attr: null })
  const other = await w.issueKey(['*'])
  t.equal((await app.inject({ method: 'GET', url: '/api/users/@me/', headers: w.bearer(other.value) })).statusCode, 200)
  for (let i = 0; i < 5; i++) {
    const captured = await app.inject({ method: 'POST', url: '/capture/', payload: { api_key: w.installation.project_api_key, event: 'e', distinct_id: 'd' } })
    t.equal(captured.statusCode, 200, 'capture is not limited per key')
  }
})

/** Date.now as the test sets it, from now on (the library's counters read Date.now). */
const fakeClock = (t: Test) => {
  const realNow = Date.now
  const start = realNow()
  let now = start
  Date.now = () => now
  t.teardown(() => { Date.now = realNow })
  return (ms: number) => { now = start + ms }
}

t.test('over HTTP, per key and two windows: a key gets its burst, then waits; refused requests count against no window', async (t) => {
  const at = fakeClock(t)
  const w = await world(t, { app: { rateLimits: [{ limit: 3, ms: 60_000 }, { limit: 5, ms: 3_600_000 }] } })
  const other = await w.issueKey(['*'])
  const wait = waitOf(w)
  t.same([await wait(), await wait(), await wait()], [200, 200, 200])
  at(10_000)
  t.equal(await wait(), 50, 'the burst window reopens 50 s later')
  t.equal(await wait(), 50)
  t.equal(await wait(other.value), 200, 'another key has its own count')
  at(60_000)
  t.equal(await wait(), 200, 'the refused requests did not use up the sustained window')
  at(60_001)
  t.equal(await wait(), 200)
  at(60_002)
  t.equal(await wait(), 3_540, 'the sustained window is used up: wait for the hour')
  at(3_600_000)
  t.equal(await wait(), 200)
})

t.test('over HTTP, with both windows used up the longer wait is told', async (t) => {
  const at = fakeClock(t)
  const w = await world(t, { app: { rateLimits: [{ limit: 1, ms: 60_000 }, { limit: 2, ms: 3_600_000 }] } })
  const wait = waitOf(w)
  t.equal(await wait(), 200)
  at(60_000)
  t.equal(await wait(), 200)
  at(60_001)
  t.equal(await wait(), 3_540, 'not the burst window\'s 60 s')
})
