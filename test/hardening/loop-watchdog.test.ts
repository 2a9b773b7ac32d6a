import t from 'tap'
import fc from 'fast-check'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { hostileBody, hostileQuery, type HostileBody } from './support/hostile.js'
import { startProber } from './support/prober.js'

// This file runs alone (`tap.serial` in package.json): its latency bound is the service's own,
// not that of another test file sharing the machine's cores.

/** Hostile requests per route; each is sent over real HTTP to a started service. */
const SAMPLES = Number(process.env['FUZZ_RUNS'] ?? 120) / 4
/** The longest a cheap request may wait for the service's event loop while hostile requests are served. */
const HELD_LIMIT_MS = 50

const percentile = (values: number[], q: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0

t.test('a watchdog request every 10 ms is answered within 50 ms, half of them within 10 ms, while a started service takes hostile requests on every endpoint', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off', HEDGELOG_AUTH_FAILURE_LIMITS: 'off' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string; personal_api_key: string; project_id: number }
  const server = await startServer([], env)
  t.teardown(async () => { server.child.kill('SIGTERM'); await exited(server.child) })
  const auth = { authorization: `Bearer ${init.personal_api_key}` }
  const token = fc.oneof(fc.constant(init.project_api_key), fc.string({ maxLength: 8 }))
  const captured = fc.record({ api_key: token, event: fc.string({ maxLength: 8 }), distinct_id: fc.string({ maxLength: 8 }), properties: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })) }, { requiredKeys: [] })
  const decided = fc.record({ token, distinct_id: fc.string({ maxLength: 8 }), person_properties: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })) }, { requiredKeys: [] })
  const managed = fc.record({ name: fc.jsonValue(), filters: fc.jsonValue({ maxDepth: 4 }), tags: fc.jsonValue(), key: fc.jsonValue() }, { requiredKeys: [] })

  // Everything is generated before the watchdog starts, so the test's own work is only sending.
  const requests: Array<{ method: string; path: string; body: HostileBody | null; headers: Record<string, string> }> = [
    ...['/capture/', '/batch/', '/e/', '/i/v0/e/', '/engage/'].flatMap((path) => fc.sample(hostileBody(captured), SAMPLES).map((body) => ({ method: 'POST', path, body, headers: {} }))),
    ...['/decide/?v=3', '/flags/?v=2'].flatMap((path) => fc.sample(hostileBody(decided), SAMPLES).map((body) => ({ method: 'POST', path, body, headers: {} }))),
    ...['dashboards/', 'feature_flags/', 'subscriptions/'].flatMap((route) =>
      fc.sample(hostileBody(managed), SAMPLES).map((body) => ({ method: 'POST', path: `/api/projects/${init.project_id}/${route}`, body, headers: auth }))),
    ...['/api/organizations/@current/invites/', '/api/personal_api_keys/'].flatMap((path) =>
      fc.sample(hostileBody(managed), SAMPLES).map((body) => ({ method: 'POST', path, body, headers: auth }))),
    ...['dashboards/', 'persons/', 'events/', 'feature_flags/'].flatMap((route) =>
      fc.sample(hostileQuery, SAMPLES).map((query) => ({ method: 'GET', path: `/api/projects/${init.project_id}/${route}?${query}`, body: null, headers: auth }))),
  ]

  // Probed from a thread of its own: sending the hostile bodies cannot delay the probe.
  const watchdog = await startProber(`${server.address}/watchdog-probe`, 10)

  const failures: string[] = []
  let next = 0
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < requests.length) {
      const { method, path, body, headers } = requests[next++]!
      const url = `${server.address}${path}${body?.query ? `${path.includes('?') ? '&' : '?'}${body.query}` : ''}`
      const response = await fetch(url, {
        method,
        headers: { ...headers, ...(body?.contentType ? { 'content-type': body.contentType } : {}), ...(body?.contentEncoding ? { 'content-encoding': body.contentEncoding } : {}) },
        ...(body ? { body: body.payload } : {}),
      }).catch((error: unknown) => ({ status: 0, text: async () => String(error) }))
      const text = await response.text()
      if (response.status >= 500 || response.status === 0) failures.push(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`)
    }
  }))
  const waits = await watchdog.stop()

  t.same(failures, [], `no hostile request got a 5xx or a dropped connection (${requests.length} sent)`)
  t.ok(waits.length > 20, `the watchdog ran (${waits.length} probes)`)
  const longest = Math.max(...waits)
  t.ok(longest < HELD_LIMIT_MS, `every probe answered within ${HELD_LIMIT_MS} ms (longest ${longest.toFixed(1)} ms, p99 ${percentile(waits, 0.99).toFixed(1)} ms)`)
  t.ok(percentile(waits, 0.5) < 10, `half the probes answer within 10 ms (p50 ${percentile(waits, 0.5).toFixed(1)} ms)`)
})
