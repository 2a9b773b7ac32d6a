import type { Figure } from './figures.js'
import { warmLoad } from './http-load.js'
import { startBare, startHedgelog } from './processes.js'
import { install, projected } from './setup.js'
import { TARGETS, measured } from './targets.js'

export const pageview = (i: number, token?: string) => ({
  ...(token === undefined ? {} : { api_key: token }),
  event: '$pageview', distinct_id: `user-${i}`,
  properties: { $current_url: `https://example.com/products/${i}`, $browser: 'Firefox', $os: 'Linux', $lib: 'bench', plan: 'pro' },
  timestamp: '2024-05-01T12:00:00.000Z',
})

/**
 * Single-event `/capture/` on `serve --roles ingest` and on the default `serve`, each as a share of
 * a bare fastify route parsing the same POST in the same run, and `/batch/` of 100 events on the
 * ingest role. Servers on core 0, autocannon (64 connections, 16 for batches) on core 1.
 */
export const captureFigures = async (durationMs: number): Promise<Figure[]> => {
  const installed = await install()
  try {
    const single = JSON.stringify(pageview(1, installed.token))
    const batch = JSON.stringify({ api_key: installed.token, batch: Array.from({ length: 100 }, (_, i) => pageview(i)) })

    const bare = await startBare()
    const bareRate = await warmLoad({ url: `${bare.address}/capture/`, method: 'POST', bodies: [single], connections: 64, durationMs }).finally(() => bare.stop())

    // The ingest role reads tokens from read models another process built: build them first.
    const builder = await startHedgelog(installed.dir, '0,1')
    await projected(builder.address)
    await builder.stop()

    const ingest = await startHedgelog(installed.dir, '0', 'ingest')
    const [ingestCapture, ingestBatch] = await (async () => {
      try {
        const capture = await warmLoad({ url: `${ingest.address}/capture/`, method: 'POST', bodies: [single], connections: 64, durationMs })
        const batched = await warmLoad({ url: `${ingest.address}/batch/`, method: 'POST', bodies: [batch], connections: 16, durationMs })
        return [capture, batched] as const
      } finally {
        await ingest.stop()
      }
    })()

    const service = await startHedgelog(installed.dir, '0')
    const defaultCapture = await warmLoad({ url: `${service.address}/capture/`, method: 'POST', bodies: [single], connections: 64, durationMs }).finally(() => service.stop())

    return [
      { name: 'bare fastify POST (same capture body), 64 connections', value: bareRate.perSecond, unit: 'req/s' },
      measured(TARGETS.captureIngest, (100 * ingestCapture.perSecond) / bareRate.perSecond, `${Math.round(ingestCapture.perSecond)} req/s, p99 ${ingestCapture.p99Ms} ms`),
      measured(TARGETS.captureDefault, (100 * defaultCapture.perSecond) / bareRate.perSecond, `${Math.round(defaultCapture.perSecond)} req/s, p99 ${defaultCapture.p99Ms} ms`),
      measured(TARGETS.batchIngest, ingestBatch.perSecond * 100, `${Math.round(ingestBatch.perSecond)} batches/s, 16 connections`),
    ]
  } finally {
    installed.remove()
  }
}
