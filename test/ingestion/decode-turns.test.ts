import t from 'tap'
import { decodeJobOf } from '../../src/ingestion/decode-job.js'
import { DecodePool, type Prepared } from '../../src/ingestion/decode-pool.js'
import { CaptureError } from '../../src/http/capture-error.js'

const context = { now: Date.parse('2026-01-01T00:00:00Z'), ip: '127.0.0.1', time: undefined }

/** A `/batch/` request of `count` events, as the decoder takes it. */
const batchJob = (count: number) => decodeJobOf({
  body: Buffer.from(JSON.stringify({ api_key: 'phc_turns', batch: Array.from({ length: count }, (_, i) => ({ event: 'e', distinct_id: `d${i}` })) })),
  headers: { 'content-type': 'application/json' },
  query: {},
})

/**
 * A `/batch/` request within every bound on size and events whose parsed form needs far more than
 * 64 MB of heap: ten events of 600,000 empty lists each, 18 MB of JSON.
 */
const heapHeavyJob = () => {
  const lists = `[${'[],'.repeat(599_999)}[]]`
  const events = Array.from({ length: 10 }, (_, i) => `{"event":"e","distinct_id":"d${i}","properties":{"lists":${lists}}}`)
  return decodeJobOf({ body: Buffer.from(`{"api_key":"phc_turns","batch":[${events.join(',')}]}`), headers: { 'content-type': 'application/json' }, query: {} })
}

const accepted = (decoded: Prepared): number => ('prepared' in decoded ? decoded.prepared.weights.length : decoded.request.events.length)

t.test('given more heavy requests than may be written at once, when they arrive, then each is written in its turn, in arrival order, with its own events', async (t) => {
  const pool = new DecodePool({ inFlight: 1 })
  t.teardown(() => pool.close())
  const log: string[] = []
  let writing = 0
  let mostAtOnce = 0
  const write = (name: string) => async (decoded: Prepared) => {
    writing++
    mostAtOnce = Math.max(mostAtOnce, writing)
    log.push(`${name} starts with ${accepted(decoded)} events`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    log.push(`${name} ends`)
    writing--
    return name
  }
  const results = await Promise.all([
    pool.inTurn(batchJob(3), context, write('first')),
    pool.inTurn(batchJob(5), context, write('second')),
    pool.inTurn(batchJob(7), context, write('third')),
  ])
  t.same(results, ['first', 'second', 'third'])
  t.equal(mostAtOnce, 1, 'never two written at once')
  t.same(log, ['first starts with 3 events', 'first ends', 'second starts with 5 events', 'second ends', 'third starts with 7 events', 'third ends'])
})

t.test('given two turns at once, when three requests arrive, then two are written together and the third waits', async (t) => {
  const pool = new DecodePool({ inFlight: 2 })
  t.teardown(() => pool.close())
  let started = 0
  let writing = 0
  let mostAtOnce = 0
  const write = async () => {
    started++
    writing++
    mostAtOnce = Math.max(mostAtOnce, writing)
    // The first write holds its turn until a second has started beside it (however slowly the
    // decoding threads start on a busy machine), or long enough to show that none may.
    for (const until = Date.now() + 5000; started < 2 && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 5))
    await new Promise((resolve) => setTimeout(resolve, 20))
    writing--
  }
  await Promise.all([1, 2, 3].map((n) => pool.inTurn(batchJob(n), context, write)))
  t.equal(started, 3)
  t.equal(mostAtOnce, 2, 'two at once, never three')
})

t.test('given a request that is refused or whose write fails, when its turn ends, then the next one has its turn', async (t) => {
  const pool = new DecodePool({ inFlight: 1 })
  t.teardown(() => pool.close())
  const refused = pool.inTurn(decodeJobOf({ body: Buffer.from('{"batch": [oops'), headers: { 'content-type': 'application/json' }, query: {} }), context, async () => 'never')
  const failing = pool.inTurn(batchJob(2), context, async () => { throw new Error('the write failed') })
  const next = pool.inTurn(batchJob(4), context, async (decoded) => accepted(decoded))
  const refusal = await refused.then(() => null, (error: unknown) => error)
  t.ok(refusal instanceof CaptureError && refusal.status === 400, 'bad JSON is refused with 400')
  await t.rejects(failing, /the write failed/)
  t.equal(await next, 4, 'the next request is written')
})

t.test('given as many heavy requests held as the pool may hold, when one more arrives, then it is refused with a retryable 503 and the others are written', async (t) => {
  const pool = new DecodePool({ inFlight: 1, maxHeld: 2 })
  t.teardown(() => pool.close())
  let release = (): void => undefined
  const gate = new Promise<void>((resolve) => { release = resolve })
  const held = [pool.inTurn(batchJob(2), context, async (decoded) => { await gate; return accepted(decoded) }), pool.inTurn(batchJob(3), context, async (decoded) => accepted(decoded))]
  const refusal = await pool.inTurn(batchJob(4), context, async () => 'never').then(() => null, (error: unknown) => error)
  t.ok(refusal instanceof CaptureError, 'refused in capture\'s shape')
  t.match(refusal, { status: 503, code: 'service_unavailable' })
  release()
  t.same(await Promise.all(held), [2, 3], 'the held requests are written')
  t.equal(await pool.inTurn(batchJob(5), context, async (decoded) => accepted(decoded)), 5, 'once they are written, the pool takes requests again')
})

t.test('given more heavy requests than threads, of different sizes, when they arrive at once, then every one is written, in arrival order', async (t) => {
  const pool = new DecodePool({ inFlight: 1, maxHeld: 8 })
  t.teardown(() => pool.close())
  const written: number[] = []
  const sizes = [6001, 1, 3501, 4501, 501, 2001, 5501, 1001]
  const all = Promise.all(sizes.map((size, n) => pool.inTurn(batchJob(size), context, async (decoded) => {
    written.push(n)
    await new Promise((resolve) => setTimeout(resolve, n % 3))
    return accepted(decoded)
  })))
  // A decoded request keeps its thread until its turn: were a later request to take a thread
  // before an earlier one, both threads could wait for turns that never come.
  const stuck = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 20_000).unref())
  t.same(await Promise.race([all, stuck]), sizes, 'each request is written with its own events')
  t.same(written, [0, 1, 2, 3, 4, 5, 6, 7])
})

t.test('given a request that needs more heap than a decoding thread has, when it is decoded, then it is refused with 413 and the next one is written', async (t) => {
  const pool = new DecodePool({ heapMb: 64 })
  t.teardown(() => pool.close())
  const refusal = await pool.inTurn(heapHeavyJob(), context, async () => 'never').then(() => null, (error: unknown) => error)
  t.match(refusal, { status: 413, code: 'payload_too_large', message: /needs too much memory/ })
  t.equal(await pool.inTurn(batchJob(3), context, async (decoded) => accepted(decoded)), 3, 'a new thread decodes the next request')
})

t.test('given decoding threads that cannot start, when requests arrive, then each is refused instead of waiting for a thread', async (t) => {
  // A thread's own start needs more than one megabyte of heap.
  const pool = new DecodePool({ heapMb: 1 })
  t.teardown(() => pool.close())
  const refusals = await Promise.all([2, 3, 4].map((n) => pool.inTurn(batchJob(n), context, async () => 'never').then(() => null, (error: unknown) => error)))
  for (const refusal of refusals) t.match(refusal, { status: 413, code: 'payload_too_large' })
})
