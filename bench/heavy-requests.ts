/**
 * `node dist/bench/heavy-requests.js`: the heavy capture path, which `npm run bench` never takes
 * (its batches are decoded on the event loop). Two figures, each on a fresh install:
 * - `flood`: four gzip `/batch/` bodies of the largest size (10,000 events, just under 20 MiB
 *   decoded) posted at once to the default `serve` (both cores), as
 *   test/hardening/heavy-requests.test.ts posts them: when each is answered, how long `/_health`
 *   took to answer meanwhile (asked every 100 ms), and the process's RSS before, at its highest
 *   while they are answered, and 10 s after the projections caught up.
 * - `closed loop`: gzip `/batch/` bodies of 4,000 events (2 MiB decoded, 60 KB sent, as posthog-js
 *   compresses) from autocannon on core 1 to `serve --roles ingest` on core 0, 4 and then 8
 *   connections for BENCH_SECONDS (default 10) each: batches answered 200 per second, the 503s of
 *   a full pool (8 held at most), and latency.
 * Prints one JSON line. Compare two builds by running each in turn, several times.
 */
import autocannon from 'autocannon'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { pinSelfToLoadCore } from './pinning.js'
import { startHedgelog } from './processes.js'
import { install, projected } from './setup.js'

const MiB = 1024 * 1024
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const rssMiB = (pid: number): number => Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024)
const gzipHeaders = { 'content-type': 'application/json', 'content-encoding': 'gzip' }

const post = async (address: string, body: Buffer | string, headers: Record<string, string>): Promise<number> => {
  const response = await fetch(`${address}/batch/`, { method: 'POST', headers, body })
  await response.text()
  return response.status
}

const flood = async () => {
  const installed = await install()
  const server = await startHedgelog(installed.dir, '0,1')
  try {
    await projected(server.address)
    await post(server.address, JSON.stringify({ api_key: installed.token, batch: [{ event: 'warm', distinct_id: 'w' }] }), { 'content-type': 'application/json' })
    const pad = Math.floor((20 * MiB - 256 * 1024) / 10_000) - 200
    const bodies = Array.from({ length: 4 }, () => gzipSync(JSON.stringify({
      api_key: installed.token,
      batch: Array.from({ length: 10_000 }, (_, i) => ({ uuid: randomUUID(), event: 'flooded', distinct_id: `u-${i % 500}`, properties: { i, pad: `${i}`.padEnd(pad, 'x') } })),
    })))
    await sleep(3000)
    const startMiB = rssMiB(server.pid)
    let peakMiB = startMiB
    let sampling = true
    const sampler = (async () => {
      for (; sampling; await sleep(20)) peakMiB = Math.max(peakMiB, rssMiB(server.pid))
    })()
    // `/_health` every 100 ms while the bodies are answered: how long the service's event loop waited.
    const healthMs: number[] = []
    const prober = (async () => {
      for (; sampling; await sleep(100)) {
        const asked = performance.now()
        await (await fetch(`${server.address}/_health`)).text()
        healthMs.push(performance.now() - asked)
      }
    })()
    const started = performance.now()
    const answered = await Promise.all(bodies.map(async (body) => [await post(server.address, body, gzipHeaders), Math.round(performance.now() - started)]))
    sampling = false
    await Promise.all([sampler, prober])
    healthMs.sort((a, b) => a - b)
    const health = { probes: healthMs.length, p50Ms: Math.round(healthMs[Math.floor(healthMs.length / 2)] ?? 0), slowestMs: Math.round(healthMs.at(-1) ?? 0) }
    await projected(server.address)
    await sleep(10_000)
    return { answered, health, startMiB, peakMiB, settledMiB: rssMiB(server.pid) }
  } finally {
    await server.stop()
    installed.remove()
  }
}

const closedLoop = async (seconds: number) => {
  const installed = await install()
  const builder = await startHedgelog(installed.dir, '0,1')
  await projected(builder.address)
  await builder.stop()
  const server = await startHedgelog(installed.dir, '0', 'ingest')
  const body = gzipSync(JSON.stringify({
    api_key: installed.token,
    batch: Array.from({ length: 4000 }, (_, i) => ({
      event: '$pageview', distinct_id: `user-${i % 300}`, timestamp: '2024-05-01T12:00:00.000Z',
      properties: { $current_url: `https://example.com/products/${i}`, $browser: 'Firefox', $os: 'Linux', $lib: 'bench', n: i, note: `item ${i} `.repeat(30) },
    })),
  }))
  const run = async (connections: number, duration: number) => {
    // The load generator keeps polling, as bench/http-load.ts explains.
    let polling = true
    const poll = (): void => { if (polling) setImmediate(poll) }
    poll()
    const result = await Promise.resolve(autocannon({ url: `${server.address}/batch/`, method: 'POST', headers: gzipHeaders, body, connections, duration }))
      .finally(() => { polling = false })
    // autocannon stops without waiting for the answers still owed; those requests stay held by
    // the service until written, and would take the next run's places.
    await sleep(5000)
    return { perSecond: result['2xx'] / duration, refused: result.non2xx, errors: result.errors, p50Ms: result.latency.p50, p99Ms: result.latency.p99 }
  }
  try {
    const figures: Record<string, Awaited<ReturnType<typeof run>>> = {}
    for (const connections of [4, 8]) {
      await run(connections, 2)
      figures[`${connections} connections`] = await run(connections, seconds)
    }
    return { bodyBytes: body.length, ...figures }
  } finally {
    await server.stop()
    installed.remove()
  }
}

const notice = pinSelfToLoadCore()
if (notice) process.stderr.write(`${notice}\n`)
const floodFigures = await flood()
const loopFigures = await closedLoop(Number(process.env['BENCH_SECONDS'] ?? 10))
process.stdout.write(`${JSON.stringify({ flood: floodFigures, closedLoop: loopFigures })}\n`)
