import t, { type Test } from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { answeredPerSecond, pacedLoad } from '../../bench/paced-load.js'

/** A local server whose answer to each request `handle` decides; resolves with its URL and the arrival times. */
const serve = async (t: Test, handle: (n: number, request: IncomingMessage, response: ServerResponse) => void) => {
  const arrivals: number[] = []
  const bodies: string[] = []
  const server = createServer((request, response) => {
    const n = arrivals.push(performance.now()) - 1
    let body = ''
    request.on('data', (chunk: Buffer) => { body += chunk.toString() })
    request.on('end', () => {
      bodies.push(body)
      handle(n, request, response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/decide/?v=3`, arrivals, bodies }
}

const answer = (response: ServerResponse, status: number, body: string): void => {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  response.end(body)
}
const ok = (response: ServerResponse): void => answer(response, 200, '{"status":1}')

t.test('requests are spread evenly over the run, not sent in bursts', async (t) => {
  const server = await serve(t, (_n, _request, response) => ok(response))
  const result = await pacedLoad({ url: server.url, method: 'POST', body: '{"a":1}', rate: 400, durationMs: 1000, connections: 8 })
  t.equal(result.sent, 400)
  t.equal(server.arrivals.length, 400)
  t.ok(server.bodies.every((body) => body === '{"a":1}'), 'every request carries the body')
  // autocannon's overallRate sends a second's share back-to-back and then waits: all 400 would land in a few ms.
  const first = server.arrivals[0]!
  const inFirstTenth = server.arrivals.filter((at) => at - first < 100).length
  t.ok(inFirstTenth >= 20 && inFirstTenth <= 60, `${inFirstTenth} of 400 arrived in the first 100 ms`)
  const span = server.arrivals.at(-1)! - first
  t.ok(span > 900 && span < 1300, `the requests span ${span.toFixed(0)} ms`)
  t.ok(result.p50Ms < 20, `p50 ${result.p50Ms.toFixed(2)} ms against a server that answers at once`)
})

t.test('latency runs from when a request was due, so a stall shows in every request it delays', async (t) => {
  // One connection; the 10th answer is held for 300 ms while requests keep falling due every 10 ms.
  const server = await serve(t, (n, _request, response) => {
    if (n === 9) setTimeout(() => ok(response), 300)
    else ok(response)
  })
  const result = await pacedLoad({ url: server.url, method: 'GET', rate: 100, durationMs: 1000, connections: 1 })
  t.equal(result.sent, 100)
  t.ok(result.maxMs >= 290, `the held request took ${result.maxMs.toFixed(0)} ms`)
  // About 30 requests fell due behind the held one; timed from when they were sent, each would look fast.
  t.ok(result.p50Ms < 50 && result.p99Ms >= 250, `p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms`)
})

t.test('a request never answered counts with the time it waited, and the run still ends', async (t) => {
  const server = await serve(t, (n, _request, response) => {
    if (n !== 3) ok(response)
  })
  const result = await pacedLoad({ url: server.url, method: 'GET', rate: 100, durationMs: 200, connections: 2, graceMs: 300 })
  t.equal(result.sent, 20)
  t.equal(result.unanswered, 1)
  t.ok(result.maxMs >= 400, `the unanswered request counts ${result.maxMs.toFixed(0)} ms`)
})

t.test('the answered rate of a window counts the answers that arrived in it, so a server falling behind shows', async (t) => {
  const keepsUp = await serve(t, (_n, _request, response) => ok(response))
  const kept = await pacedLoad({ url: keepsUp.url, method: 'POST', body: '{}', rate: 200, durationMs: 1000, connections: 4 })
  t.equal(kept.answeredAtMs.length, 200)
  t.ok(kept.answeredAtMs.every((at, i) => i === 0 || at >= kept.answeredAtMs[i - 1]!), 'in arrival order')
  const keptRate = answeredPerSecond(kept, 250, 750)
  t.ok(keptRate >= 190 && keptRate <= 210, `a server that keeps up answers ${keptRate} per second in the middle`)
  // One connection and 10 ms per answer: at most 100 answers a second while 200 fall due.
  const slow = await serve(t, (_n, _request, response) => setTimeout(() => ok(response), 10))
  const behind = await pacedLoad({ url: slow.url, method: 'POST', body: '{}', rate: 200, durationMs: 1000, connections: 1, graceMs: 2000 })
  t.equal(behind.unanswered, 0, 'every request is answered in the grace')
  const behindRate = answeredPerSecond(behind, 250, 750)
  t.ok(behindRate <= 110, `a server that falls behind answers ${behindRate} per second in the middle`)
  t.ok(behind.perSecond < 120, `and ${behind.perSecond.toFixed(0)} per second over the whole run`)
})

t.test('an answer other than 2xx fails the run', async (t) => {
  const server = await serve(t, (n, _request, response) => {
    if (n === 5) answer(response, 503, '{"detail":"busy"}')
    else ok(response)
  })
  await t.rejects(pacedLoad({ url: server.url, method: 'GET', rate: 100, durationMs: 300, connections: 2 }), /answered 503/)
})

t.test('an answer without a length fails the run instead of being misread', async (t) => {
  const server = await serve(t, (_n, _request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })
    response.end('{"status":1}')
  })
  await t.rejects(pacedLoad({ url: server.url, method: 'GET', rate: 50, durationMs: 200, connections: 1 }), /without content-length/)
})
