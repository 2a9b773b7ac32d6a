import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { initialize, issueApiKey } from '../src/accounts/commands.js'
import { loadConfig } from '../src/config.js'
import { newEventId } from '../src/kernel/ids.js'
import { startService } from '../src/service.js'
import type { Figure } from './eventlog.js'
import { load } from './http-load.js'

const context = () => ({ actor: 'bench', now: new Date().toISOString(), correlationId: newEventId() })

/**
 * Read throughput of the management API on the embedded stores, over real HTTP: one dashboard
 * with ten text tiles, and a page of 25 subscriptions.
 */
export const managementReads = async (connections: number, durationMs: number): Promise<Figure[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgelog-bench-'))
  const config = loadConfig({ HEDGELOG_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', HEDGELOG_RATE_LIMITS: 'off' })
  const service = await startService(config, ['api', 'projector'], pino({ level: 'error' }))
  try {
    const installation = await initialize(service.log, context())
    const key = await issueApiKey(service.log, { userUuid: installation.user_uuid, scopes: ['*'], label: 'bench' }, context())
    const headers = { authorization: `Bearer ${key.value}`, 'content-type': 'application/json' }
    const base = `${service.address}/api/environments/${installation.environment_id}`
    const post = async (path: string, body: unknown, method = 'POST') => {
      const response = await fetch(`${base}${path}`, { method, headers, body: JSON.stringify(body) })
      if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`)
      return response.json() as Promise<{ id: number }>
    }
    const dashboard = await post('/dashboards/', { name: 'bench', description: 'a dashboard to read' })
    await post(`/dashboards/${dashboard.id}/`, { tiles: Array.from({ length: 10 }, (_, i) => ({ text: { body: `card ${i}` } })) }, 'PATCH')
    for (let i = 0; i < 25; i++) {
      await post('/subscriptions/', {
        dashboard: dashboard.id, target_type: 'email', target_value: `u${i}@example.com`, frequency: 'weekly', start_date: '2022-01-01T00:00:00Z',
      })
    }
    const dashboardRead = await load({ url: `${base}/dashboards/${dashboard.id}/`, headers, connections, durationMs })
    const subscriptionList = await load({ url: `${base}/subscriptions/`, headers, connections, durationMs })
    for (const [name, result] of [['dashboard', dashboardRead], ['subscription list', subscriptionList]] as const) {
      if (result.failures > 0) throw new Error(`${name}: ${result.failures} failed requests`)
    }
    return [
      { name: `GET dashboard (10 tiles), ${connections} connections`, value: dashboardRead.perSecond, unit: `req/s (p99 ${dashboardRead.p99Ms.toFixed(1)} ms)` },
      { name: `GET subscription list (25), ${connections} connections`, value: subscriptionList.perSecond, unit: `req/s (p99 ${subscriptionList.p99Ms.toFixed(1)} ms)` },
    ]
  } finally {
    await service.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
