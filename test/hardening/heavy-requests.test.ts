import t from 'tap'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { gunzipSync, gzipSync } from 'node:zlib'
import { DECIDE_BODY_BYTES } from '../../src/decide/routes.js'
import { DEFAULT_ADMISSION } from '../../src/http/admission.js'
import { MAX_EVENTS_PER_REQUEST } from '../../src/ingestion/limits.js'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { lz64Bomb } from './support/hostile.js'
import { startProber } from './support/prober.js'

// This file runs alone (`tap.serial` in package.json): its latency bounds are the service's own,
// not those of another test file sharing the machine's cores. They tell whether heavy work held
// the service's event loop; how fast health answers meanwhile is a figure of
// bench/heavy-requests.ts.

const MiB = 1024 * 1024
/** The decoded payload a request may carry, and a little under it for the flood's bodies. */
const DECODED_LIMIT = 20 * MiB
const FLOOD_BYTES = DECODED_LIMIT - 256 * 1024

const rssOf = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match![1]) * 1024
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A legal `/batch/` body of the largest size: the most events one request may hold, padded to just under the decoded limit. */
const maximalBatch = (token: string): Buffer => {
  const pad = Math.floor(FLOOD_BYTES / MAX_EVENTS_PER_REQUEST) - 200
  const batch = Array.from({ length: MAX_EVENTS_PER_REQUEST }, (_, i) => ({
    uuid: randomUUID(), event: 'flooded', distinct_id: `u-${i % 500}`, properties: { i, pad: `${i}`.padEnd(pad, 'x') },
  }))
  const json = Buffer.from(JSON.stringify({ api_key: token, batch }))
  if (json.length > DECODED_LIMIT || json.length < DECODED_LIMIT * 0.9) throw new Error(`the flood body should be just under the limit, not ${json.length} bytes`)
  return gzipSync(json)
}

/**
 * Collects this test process's garbage now. Making the flood's bodies leaves some 100 MB of it
 * (their events and JSON texts); collected during the flood, it would take CPU from the service
 * whose latency the probes measure.
 */
const collectOwnGarbage = (): void => {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}

/**
 * How long decoding `body` (gunzip, then JSON.parse) holds this process's event loop, the least of
 * three tries. A service decoding such a body on its own event loop would hold it at least that
 * long, so health probes all answered sooner show the body was decoded elsewhere, on any machine.
 */
const decodeOnLoopMs = (body: Buffer): number => {
  let least = Infinity
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    JSON.parse(gunzipSync(body).toString('utf8'))
    least = Math.min(least, performance.now() - started)
  }
  return least
}

/** Resolves once health shows every projection with nothing left to apply. */
const caughtUp = async (address: string): Promise<void> => {
  const started = performance.now()
  for (;;) {
    const health = await (await fetch(`${address}/_health`)).json() as { projections: Record<string, { lag: number }> }
    if (Object.values(health.projections).every((projection) => projection.lag === 0)) return
    if (performance.now() - started > 90_000) throw new Error('the projections did not catch up within 90 s')
    await sleep(250)
  }
}

/**
 * The RSS of `pid` once the work that ended at `workedAt` has given its memory back: a decoding
 * thread exits 2 s after its last request, and a projection thread collects 3 s and 9 s after its
 * last batch. So no sooner than 10 s after it, and once RSS has not fallen by more than 1 % over
 * the last 2 s (at most 30 s after it).
 */
const settledRss = async (pid: number, workedAt: number): Promise<number> => {
  const readings: Array<{ at: number; rss: number }> = []
  for (;;) {
    const at = performance.now()
    readings.push({ at, rss: rssOf(pid) })
    const now = readings.at(-1)!.rss
    const before = readings.findLast((reading) => reading.at <= at - 2000)
    if (at - workedAt >= 30_000 || (at - workedAt >= 10_000 && before !== undefined && now >= before.rss * 0.99)) {
      t.comment(`RSS settled at ${Math.round(now / MiB)} MiB, ${((at - workedAt) / 1000).toFixed(1)} s after the work`)
      return now
    }
    await sleep(250)
  }
}

/** Probes `/_health` every 100 ms from a thread of its own until stopped; `stop` gives each answer's time. */
const probeHealth = (address: string) => startProber(`${address}/_health`, 100)

const post = async (address: string, path: string, body: Buffer, headers: Record<string, string>) => {
  const response = await fetch(`${address}${path}`, { method: 'POST', headers, body })
  return { status: response.status, body: await response.text() }
}

t.test('a started service under heavy ingestion requests', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off', LOG_LEVEL: 'warn' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string }
  const server = await startServer([], { ...env, LOG_LEVEL: 'info' })
  t.teardown(async () => { server.child.kill('SIGTERM'); await exited(server.child) })
  const pid = server.child.pid!
  const gzipHeaders = { 'content-type': 'application/json', 'content-encoding': 'gzip' }
  const token = init.project_api_key

  // Warm up: one batch of the largest size, projected. Each SQLite connection of the service keeps
  // up to 16 MB of pages in its cache (better-sqlite3's default) once it has read or written that
  // much, and keeps them: a cache, bounded, not memory the work left behind. Several connections
  // fill theirs with the first large work, so the flood's memory is measured from a service that
  // has served such work, as any service has after a while.
  const warm = await post(server.address, '/batch/', maximalBatch(token), gzipHeaders)
  t.equal(warm.status, 200)
  await caughtUp(server.address)
  const warmedAt = performance.now()

  await t.test('given a 46 KB gzip body of 600,000 tiny events, when it is posted, then it is refused with 413 at once and health keeps being answered', async (t) => {
    const tiny = JSON.stringify({ api_key: token, batch: Array.from({ length: 600_000 }, () => ({ event: 'e', distinct_id: 'd' })) })
    const body = gzipSync(tiny)
    t.ok(body.length < 100 * 1024 && tiny.length < DECODED_LIMIT, `a small body (${body.length} bytes) within the decoded limit (${tiny.length} bytes)`)
    const decodeMs = decodeOnLoopMs(body)
    const probes = await probeHealth(server.address)
    const started = performance.now()
    const answer = await post(server.address, '/batch/', body, gzipHeaders)
    const took = performance.now() - started
    await sleep(300)
    const times = await probes.stop()
    t.equal(answer.status, 413)
    t.same(JSON.parse(answer.body), {
      status: 413, code: 'payload_too_large',
      error: `maximum event size exceeded: request holds 600000 events, more than the ${MAX_EVENTS_PER_REQUEST} allowed in one request`,
    }, 'in capture\'s error shape')
    t.ok(took < 3000, `answered in ${Math.round(took)} ms`)
    t.ok(times.length > 0, `health was probed while the request was refused (${times.length} probes)`)
    t.ok(Math.max(...times) < decodeMs, `every health probe answered sooner than the body decodes on an event loop, ${Math.round(decodeMs)} ms (slowest ${Math.round(Math.max(...times))} ms)`)
  })

  await t.test('given four legal maximum-size gzip bodies, when they are posted at once, then all are accepted while health keeps being answered', async (t) => {
    const bodies = Array.from({ length: 4 }, () => maximalBatch(token))
    const decodeMs = decodeOnLoopMs(bodies[0]!)
    collectOwnGarbage()
    const startRss = await settledRss(pid, warmedAt)
    const probes = await probeHealth(server.address)
    const answers = await Promise.all(bodies.map((body) => post(server.address, '/batch/', body, gzipHeaders)))
    await sleep(300)
    const times = await probes.stop()
    t.same(answers.map((a) => a.status), [200, 200, 200, 200], 'all four are accepted')
    const slowest = Math.max(...times)
    t.ok(times.length >= 3, `health was probed ${times.length} times during the flood`)
    t.ok(slowest < decodeMs, `every health probe answered sooner than one body decodes on an event loop, ${Math.round(decodeMs)} ms (slowest ${Math.round(slowest)} ms of ${times.length})`)

    // The flood's 40,000 events are projected after they are acknowledged; the memory that work
    // takes is the service's until health shows every projection with nothing left to apply; from
    // then on it should be given back.
    const acknowledged = performance.now()
    await caughtUp(server.address)
    t.comment(`the projections caught up ${((performance.now() - acknowledged) / 1000).toFixed(1)} s after the flood was acknowledged`)
    // The projection threads and the decoding threads give their memory back once they have
    // been quiet a few seconds (see projections/threads/idle-collect.ts and decode-pool.ts).
    let rss = rssOf(pid)
    for (let i = 0; i < 150 && rss > startRss * 1.2; i++) {
      await sleep(200)
      rss = rssOf(pid)
    }
    t.ok(rss <= startRss * 1.2, `RSS came back within 20 % of its start once the projections caught up: ${Math.round(rss / MiB)} MiB from ${Math.round(startRss / MiB)} MiB, ${(rss / startRss).toFixed(2)} ×`)
  })

  await t.test('given bodies of a million properties on the v1 capture route and on decide, when they are posted, then each is refused at once and health keeps being answered', async (t) => {
    const million = (): Record<string, number> => {
      const properties: Record<string, number> = {}
      for (let i = 0; i < 1_000_000; i++) properties[`k${i}`] = 1
      return properties
    }
    // Made and written out once (a second or two each): the three bodies carry the same properties.
    const properties = JSON.stringify(million())
    const event = `{"event":"e","uuid":"${randomUUID()}","distinct_id":"d","timestamp":"${new Date().toISOString()}","properties":${properties}}`
    const v1Body = gzipSync(`{"created_at":"${new Date().toISOString()}","batch":[${event}]}`)
    const decideBody = (sent: string) => gzipSync(`{"token":${JSON.stringify(sent)},"distinct_id":"d","person_properties":${properties}}`)
    const [unknownDecide, knownDecide] = [decideBody('phc_unknown'), decideBody(token)]
    const decodeMs = decodeOnLoopMs(v1Body)
    collectOwnGarbage()
    const probes = await probeHealth(server.address)
    const took: number[] = []
    const timed = async (path: string, body: Buffer, headers: Record<string, string>) => {
      const started = performance.now()
      const answer = await post(server.address, path, body, headers)
      took.push(performance.now() - started)
      return answer
    }
    const v1Unknown = await timed('/i/v1/analytics/events', v1Body, { ...gzipHeaders, authorization: 'Bearer phc_unknown' })
    const v1Known = await timed('/i/v1/analytics/events', v1Body, { ...gzipHeaders, authorization: `Bearer ${token}` })
    const decideUnknown = await timed('/decide/?v=3', unknownDecide, gzipHeaders)
    const decideKnown = await timed('/decide/?v=3', knownDecide, gzipHeaders)
    await sleep(300)
    const times = await probes.stop()
    t.equal(v1Unknown.status, 403, 'v1 with a token of no project: refused before its body is read')
    t.equal((JSON.parse(v1Unknown.body) as { code: string }).code, 'ingest_key_unknown')
    t.equal(v1Known.status, 413, 'v1 with a real token: the 12 MB event is too large')
    t.equal((JSON.parse(v1Known.body) as { code: string }).code, 'payload_too_large')
    for (const [name, answer] of [['unknown', decideUnknown], ['known', decideKnown]] as const) {
      t.equal(answer.status, 413, `decide with the ${name} token: refused as too large`)
      t.equal((JSON.parse(answer.body) as { code: string }).code, 'request_too_large')
    }
    const [v1UnknownMs, , ...decideMs] = took
    t.ok(v1UnknownMs! < 500, `v1 with no project's token answered in ${Math.round(v1UnknownMs!)} ms`)
    t.ok(decideMs.every((ms) => ms < 1000), `decide answered in ${decideMs.map(Math.round).join(' and ')} ms`)
    t.comment(`v1 with the real token answered in ${Math.round(took[1]!)} ms, decoded on a decoding thread`)
    t.ok(times.length >= 3, `health was probed ${times.length} times`)
    t.ok(Math.max(...times) < decodeMs, `every health probe answered sooner than one such body decodes on an event loop, ${Math.round(decodeMs)} ms (slowest ${Math.round(Math.max(...times))} ms)`)
  })

  await t.test('given decide bodies of the largest size, made of tiny person properties, when they are posted, then they are answered and health keeps being answered', async (t) => {
    const properties: Record<string, number> = {}
    // Each property adds `"k<i>":<i>,` to the JSON text: twice its digits and five characters.
    for (let i = 0, chars = 0; chars < DECIDE_BODY_BYTES - 2 * 1024; i++) {
      properties[`k${i}`] = i
      chars += 2 * String(i).length + 5
    }
    const body = Buffer.from(JSON.stringify({ token, distinct_id: 'd', person_properties: properties }))
    t.ok(body.length <= DECIDE_BODY_BYTES && body.length > DECIDE_BODY_BYTES * 0.95, `the body is ${body.length} bytes, just within decide's bound`)
    const probes = await probeHealth(server.address)
    const answers = []
    for (let i = 0; i < 3; i++) answers.push(await post(server.address, '/decide/?v=3', body, { 'content-type': 'application/json' }))
    await sleep(300)
    const times = await probes.stop()
    t.same(answers.map((a) => a.status), [200, 200, 200])
    t.ok(times.length >= 3, `health was probed ${times.length} times`)
    // Decide parses such a body on the event loop, by design: a few milliseconds.
    const held = DEFAULT_ADMISSION.loopDelayMs
    t.ok(Math.max(...times) < held, `every health probe answered within ${held} ms, the loop delay at which the service refuses work as overloaded (slowest ${Math.round(Math.max(...times))} ms)`)
  })

  await t.test('given one event more than a request may hold, when it is posted, then it is refused with 413 and nothing is written', async (t) => {
    const batch = Array.from({ length: MAX_EVENTS_PER_REQUEST + 1 }, () => ({ event: 'over', distinct_id: 'o' }))
    const answer = await post(server.address, '/batch/', Buffer.from(JSON.stringify({ api_key: token, batch })), { 'content-type': 'application/json' })
    t.equal(answer.status, 413)
    t.equal((JSON.parse(answer.body) as { code: string }).code, 'payload_too_large')
  })

  await t.test('given a gzip-js body on /capture/ that inflates past the decoded limit, when it is posted, then it is refused with 413', async (t) => {
    const bomb = gzipSync(Buffer.alloc(DECODED_LIMIT + 1, 0x20))
    const answer = await post(server.address, '/capture/?compression=gzip-js', bomb, { 'content-type': 'text/plain' })
    t.equal(answer.status, 413)
    t.equal((JSON.parse(answer.body) as { code: string }).code, 'payload_too_large')
  })

  await t.test('given lz64 bodies of at most 240 KB that decode to 21 MiB to 4 GiB, when they are posted raw and as forms, then each is refused with 413 at once and health keeps answering', async (t) => {
    const probe = await probeHealth(server.address)
    const answers = []
    for (const mib of [21, 1024, 4096]) {
      const bomb = lz64Bomb(mib)
      t.ok(bomb.length < 256 * 1024, `the ${mib} MiB bomb is ${bomb.length} bytes`)
      const started = performance.now()
      answers.push(await post(server.address, '/e/?compression=lz64', Buffer.from(bomb), { 'content-type': 'text/plain' }))
      answers.push(await post(server.address, '/batch/', Buffer.from(`data=${encodeURIComponent(bomb)}&compression=lz64`), { 'content-type': 'application/x-www-form-urlencoded' }))
      t.ok(performance.now() - started < 2000, `both ${mib} MiB bombs were answered in ${Math.round(performance.now() - started)} ms`)
    }
    await sleep(300)
    const times = await probe.stop()
    const tooLarge = { status: 413, code: 'payload_too_large', error: 'maximum event size exceeded: decompressed payload exceeds 20971520 bytes' }
    t.same(answers.map((a) => [a.status, JSON.parse(a.body)]), answers.map(() => [413, tooLarge]))
    t.ok(times.length > 0 && Math.max(...times) < 500, `health answered within ${Math.round(Math.max(...times))} ms throughout`)
  })
})
