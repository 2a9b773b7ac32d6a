import autocannon from 'autocannon'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Figure } from './eventlog.js'
import { MAIN, freePort, run, startProcess } from './processes.js'

const percentile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN

/**
 * Under the full `/batch/` load (100-event batches, 16 connections) on the embedded service, a
 * probe sets a new person property every 100 ms through `/capture/` and polls the persons API
 * until it reads the new value: the time from the capture's acknowledgement to that read.
 */
export const ackToReadable = async (durationMs: number): Promise<Figure[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgelog-bench-'))
  const env = { HEDGELOG_DATA_DIR: dir, LOG_LEVEL: 'warn' }
  try {
    const init = JSON.parse(await run([MAIN, 'init', '--json'], env)) as { project_api_key: string; personal_api_key: string; environment_id: number }
    const port = await freePort()
    const service = await startProcess([MAIN, 'serve'], { ...env, PORT: String(port) }, `http://127.0.0.1:${port}`)
    try {
      const batch = JSON.stringify({
        api_key: init.project_api_key,
        batch: Array.from({ length: 100 }, (_, i) => ({ event: '$pageview', distinct_id: `user-${i}`, properties: { $current_url: `https://example.com/${i}`, $browser: 'Firefox' } })),
      })
      const background = autocannon({
        url: `${service.address}/batch/`, method: 'POST', body: batch, connections: 16,
        duration: Math.max(1, Math.round(durationMs / 1000)), headers: { 'content-type': 'application/json' },
      })
      const latencies: number[] = []
      let unread = 0
      const deadline = performance.now() + durationMs
      for (let n = 0; performance.now() < deadline; n++) {
        const response = await fetch(`${service.address}/capture/`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: init.project_api_key, event: 'probe', distinct_id: 'probe', properties: { $set: { probe: n } } }),
        })
        if (response.status !== 200) throw new Error(`probe capture answered ${response.status}`)
        const acknowledged = performance.now()
        let seen = false
        while (!seen && performance.now() - acknowledged < 10_000) {
          const persons = await fetch(`${service.address}/api/environments/${init.environment_id}/persons/?distinct_id=probe`, {
            headers: { authorization: `Bearer ${init.personal_api_key}` },
          }).then((r) => r.json()) as { results?: { properties: Record<string, unknown> }[] }
          seen = persons.results?.[0]?.properties['probe'] === n
          if (!seen) await new Promise((resolve) => setTimeout(resolve, 5))
        }
        if (seen) latencies.push(performance.now() - acknowledged)
        else unread++
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const loaded = await background
      latencies.sort((a, b) => a - b)
      const p99 = unread > 0 ? Number.POSITIVE_INFINITY : percentile(latencies, 0.99)
      return [
        { name: 'background /batch/ load during the probe', value: loaded.requests.average * 100, unit: 'events/s' },
        { name: 'ack → person property readable, p50', value: percentile(latencies, 0.5), unit: 'ms' },
        { name: 'ack → person property readable, p99', value: p99, unit: `ms (${latencies.length} probes, ${unread} unread after 10 s)`, ceiling: 250 },
      ]
    } finally {
      await service.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
