/**
 * `npm run soak`: the embedded service in its own process under a mixed load for SOAK_SECONDS
 * (default 300): single captures, batches, decide, management reads and writes. It passes when no
 * request failed, the server's memory stayed flat (the last fifth of the run within 25 % of the
 * second fifth, which needs memory samples: Linux's /proc), and every acknowledged event is found by
 * its uuid through the events API at the end.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { MAIN, freePort, run, startProcess } from './processes.js'

const seconds = Number(process.env['SOAK_SECONDS'] ?? 300)
const CONNECTIONS = 16

interface Answer { status: number; body: string }

const dir = mkdtempSync(join(tmpdir(), 'hedgelog-soak-'))
const env = { HEDGELOG_DATA_DIR: dir, LOG_LEVEL: 'warn', HEDGELOG_RATE_LIMITS: 'off' }
const init = JSON.parse(await run([MAIN, 'init', '--json'], env)) as { project_api_key: string; personal_api_key: string; project_id: number }
const port = await freePort()
const server = await startProcess([MAIN, 'serve'], { ...env, PORT: String(port) }, '0,1', `http://127.0.0.1:${port}`)
const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
const call = (method: string, path: string, body?: unknown, auth = false): Promise<Answer> => new Promise((resolve) => {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  const req = request({
    agent, host: '127.0.0.1', port, path, method,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${init.personal_api_key}` } : {}), ...(payload ? { 'content-length': String(Buffer.byteLength(payload)) } : {}) },
  }, (response) => {
    let text = ''
    response.on('data', (chunk: Buffer) => { text += chunk.toString() })
    response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
  })
  req.on('error', (error) => resolve({ status: 0, body: String(error) }))
  req.end(payload)
})

/** The uuids of the events whose request was answered 200. */
const acknowledged = new Set<string>()
const failures: string[] = []
const counts = new Map<string, number>()
const base = `/api/projects/${init.project_id}`
const event = (i: number) => ({ uuid: randomUUID(), event: i % 10 === 0 ? '$identify' : '$pageview', distinct_id: `user-${i % 5000}`, properties: { $session_id: `s-${i % 700}`, $current_url: `https://example.com/${i % 50}`, ...(i % 10 === 0 ? { $set: { plan: i % 3 ? 'pro' : 'free' } } : {}), ...(i % 7 === 0 ? { $groups: { company: `c${i % 40}` } } : {}) } })
let dashboardId = 0
const operations: [string, number, (i: number) => Promise<Answer | null>][] = [
  ['capture', 40, async (i) => {
    const one = event(i)
    const r = await call('POST', '/capture/', { api_key: init.project_api_key, ...one })
    if (r.status === 200) acknowledged.add(one.uuid)
    return r
  }],
  ['batch', 10, async (i) => {
    const batch = Array.from({ length: 50 }, (_, k) => event(i * 50 + k))
    const r = await call('POST', '/batch/', { api_key: init.project_api_key, batch })
    if (r.status === 200) for (const one of batch) acknowledged.add(one.uuid)
    return r
  }],
  ['decide', 25, async (i) => call('POST', '/decide/?v=3', { token: init.project_api_key, distinct_id: `user-${i % 5000}` })],
  ['read', 15, async (i) => call('GET', [`${base}/dashboards/`, `${base}/feature_flags/`, `${base}/persons/?distinct_id=user-${i % 5000}`, `${base}/events/?limit=10`][i % 4]!, undefined, true)],
  ['write', 10, async (i) => dashboardId === 0 ? null : call('PATCH', `${base}/dashboards/${dashboardId}/`, { description: `soak ${i}` }, true)],
]
const weights = operations.reduce((sum, [, weight]) => sum + weight, 0)

try {
  const created = JSON.parse((await call('POST', `${base}/dashboards/`, { name: 'soak' }, true)).body) as { id: number }
  dashboardId = created.id
  for (let f = 0; f < 20; f++) await call('POST', `${base}/feature_flags/`, { key: `soak-${f}`, filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 50 }] } }, true)
  const rss: number[] = []
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${server.pid}/status`, 'utf8')
      rss.push(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024)
    } catch { /* not on Linux: no sample, and the memory check fails */ }
  }, 1000)
  const deadline = Date.now() + seconds * 1000
  let n = 0
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < deadline) {
      const i = n++
      let pick = (i * 7919) % weights
      const [name, , operate] = operations.find(([, weight]) => (pick -= weight) < 0)!
      const answer = await operate(i)
      counts.set(name, (counts.get(name) ?? 0) + 1)
      if (answer && (answer.status < 200 || answer.status >= 300) && failures.length < 20) failures.push(`${name}: ${answer.status} ${answer.body.slice(0, 200)}`)
      else if (answer && (answer.status < 200 || answer.status >= 300)) failures.push(name)
    }
  }))
  clearInterval(sampler)
  // Every acknowledged event must be found by its uuid; projections may still be catching up.
  let missing = [...acknowledged]
  const settleBy = Date.now() + 120_000
  while (missing.length > 0 && Date.now() < settleBy) {
    const queue = [...missing]
    const still: string[] = []
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      for (let uuid = queue.pop(); uuid !== undefined; uuid = queue.pop()) {
        const found = await call('GET', `${base}/events/${uuid}/`, undefined, true)
        if (found.status !== 200 || (JSON.parse(found.body) as { id?: string }).id !== uuid) still.push(uuid)
      }
    }))
    missing = still
    if (missing.length > 0) await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  const fifth = Math.max(1, Math.floor(rss.length / 5))
  const average = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)
  const early = average(rss.slice(fifth, 2 * fifth))
  const late = average(rss.slice(-fifth))
  const sampled = rss.length >= 5
  const flat = sampled && late <= early * 1.25
  process.stdout.write(`soak: ${seconds}s, ${[...counts].map(([k, v]) => `${k} ${v}`).join(', ')}\n`)
  process.stdout.write(`failed requests: ${failures.length}${failures.length ? `\n  ${failures.slice(0, 20).join('\n  ')}` : ''}\n`)
  process.stdout.write(sampled
    ? `server RSS: second fifth ${(early / 2 ** 20).toFixed(0)} MiB, last fifth ${(late / 2 ** 20).toFixed(0)} MiB (${flat ? 'flat' : 'GROWING'})\n`
    : `server RSS: ${rss.length} sample(s), too few to tell whether memory stayed flat\n`)
  process.stdout.write(`events acknowledged ${acknowledged.size}, found by uuid ${acknowledged.size - missing.length}${missing.length ? `, missing ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ' …' : ''}` : ''}\n`)
  if (failures.length > 0 || !flat || missing.length > 0) process.exitCode = 1
} finally {
  agent.destroy()
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
