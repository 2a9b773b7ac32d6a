import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Figure } from './eventlog.js'
import { BARE, MAIN, freePort, load, run, startProcess } from './processes.js'

const event = (token: string | undefined, i: number) => ({
  ...(token === undefined ? {} : { api_key: token }),
  event: '$pageview', distinct_id: `user-${i}`,
  properties: { $current_url: `https://example.com/products/${i}`, $browser: 'Firefox', $os: 'Linux', $lib: 'bench', plan: 'pro' },
  timestamp: '2024-05-01T12:00:00.000Z',
})

/**
 * The embedded service (`hedgelog serve`, every role, SQLite files) in its own process, against
 * a bare fastify route in another, loaded in turn from this process by autocannon.
 */
export const ingestionFigures = async (durationMs: number): Promise<Figure[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgelog-bench-'))
  const env = { HEDGELOG_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn' }
  try {
    const { project_api_key: token } = JSON.parse(await run([MAIN, 'init', '--json'], env)) as { project_api_key: string }
    const single = JSON.stringify(event(token, 1))

    const bare = await startProcess([BARE], {})
    const bareRate = await load(`${bare.address}/capture/`, single, 64, durationMs).finally(() => bare.stop())

    // The service logs at warn only (as the bare route logs nothing), so it is given its port.
    const port = await freePort()
    const service = await startProcess([MAIN, 'serve'], { ...env, PORT: String(port) }, `http://127.0.0.1:${port}`)
    try {
      await load(`${service.address}/capture/`, single, 64, 1000)
      const captureRate = await load(`${service.address}/capture/`, single, 64, durationMs)
      const batch = JSON.stringify({ api_key: token, batch: Array.from({ length: 100 }, (_, i) => event(undefined, i)) })
      const batchRate = await load(`${service.address}/batch/`, batch, 16, durationMs)
      return [
        { name: 'bare fastify route, same POST, 64 connections', value: bareRate, unit: 'req/s' },
        { name: 'single-event /capture/, 64 connections', value: captureRate, unit: 'req/s' },
        { name: '/capture/ as a share of the bare route', value: (100 * captureRate) / bareRate, unit: '%', target: 60 },
        { name: '/batch/ of 100 events, 16 connections', value: batchRate * 100, unit: 'events/s', target: 100_000 },
      ]
    } finally {
      await service.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
