import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Figure } from './eventlog.js'
import { BARE, MAIN, freePort, measure, run, startProcess } from './processes.js'

const OPERATORS = [
  ['plan', 'exact', 'pro'], ['email', 'icontains', 'example'], ['age', 'gt', '30'], ['country', 'is_not', 'FR'],
  ['signed_up', 'is_date_after', '-90d'], ['name', 'regex', '^a'], ['beta', 'exact', ['true']], ['score', 'lte', '50'],
] as const

/** Fifty flags of every kind: rollouts, property conditions, multivariate with payloads, overrides. */
const flags = Array.from({ length: 50 }, (_, i) => {
  const [key, operator, value] = OPERATORS[i % OPERATORS.length]!
  const condition = { properties: i % 5 === 0 ? [] : [{ key, operator, value, type: 'person' }], rollout_percentage: (i * 17) % 101 }
  const multivariate = i % 3 === 0
    ? { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] }
    : null
  return {
    key: `flag-${i}`,
    filters: { groups: [condition], ...(multivariate ? { multivariate, payloads: { test: { n: i } } } : { payloads: { true: { n: i } } }) },
  }
})

const personProperties = {
  plan: 'pro', email: 'ada@example.com', age: 36, country: 'GB', signed_up: new Date(Date.now() - 10 * 86_400_000).toISOString(),
  name: 'ada', beta: 'true', score: 42, company: 'Acme', role: 'engineer', seats: 12, locale: 'en-GB', theme: 'dark',
  referrer: 'search', os: 'Linux', browser: 'Firefox', device: 'desktop', city: 'London', team: 'core', tier: 'gold',
}

/**
 * `/decide?v=3` on the embedded service (every role, SQLite files) with 50 flags and a person with
 * 20 stored properties, against the bare fastify route answering the same POST, 64 connections.
 */
export const decideFigures = async (durationMs: number): Promise<Figure[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgelog-bench-'))
  const env = { HEDGELOG_DATA_DIR: dir, LOG_LEVEL: 'warn' }
  try {
    const init = JSON.parse(await run([MAIN, 'init', '--json'], env)) as { project_api_key: string; personal_api_key: string; project_id: number }
    const body = JSON.stringify({ token: init.project_api_key, distinct_id: 'ada', groups: {}, geoip_disable: true })
    const bare = await startProcess([BARE], {})
    const baseline = await measure(`${bare.address}/decide/`, body, 64, durationMs).finally(() => bare.stop())

    const port = await freePort()
    const service = await startProcess([MAIN, 'serve'], { ...env, PORT: String(port) }, `http://127.0.0.1:${port}`)
    try {
      const headers = { authorization: `Bearer ${init.personal_api_key}`, 'content-type': 'application/json' }
      for (const flag of flags) {
        const response = await fetch(`${service.address}/api/projects/${init.project_id}/feature_flags/`, { method: 'POST', headers, body: JSON.stringify(flag) })
        if (response.status !== 201) throw new Error(`flag ${flag.key}: ${response.status} ${await response.text()}`)
      }
      await fetch(`${service.address}/capture/`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: init.project_api_key, event: '$identify', distinct_id: 'ada', properties: { $set: personProperties } }),
      })
      // Until the person is projected the answer differs; wait for it.
      for (let i = 0; i < 200; i++) {
        const answer = await fetch(`${service.address}/decide/?v=3`, { method: 'POST', body }).then((r) => r.json()) as { featureFlags: Record<string, unknown> }
        if (answer.featureFlags['flag-1'] !== undefined && Object.keys(answer.featureFlags).length === 50 && answer.featureFlags['flag-16'] !== false) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const url = `${service.address}/decide/?v=3`
      await measure(url, body, 64, 1000)
      const decide = await measure(url, body, 64, durationMs)
      return [
        { name: 'bare fastify route, same decide POST, 64 connections', value: baseline.perSecond, unit: 'req/s' },
        { name: '/decide?v=3, 50 flags, 20 person properties, 64 connections', value: decide.perSecond, unit: `req/s (p50 ${decide.p50Ms} ms, p99 ${decide.p99Ms} ms)` },
        { name: '/decide as a share of the bare route', value: (100 * decide.perSecond) / baseline.perSecond, unit: '%', target: 50 },
        { name: '/decide p99 latency, 64 connections', value: decide.p99Ms, unit: 'ms', ceiling: 5 },
      ]
    } finally {
      await service.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
