import type { Figure } from './figures.js'
import { compareEachWithBare, compareWithBare, comparisonNote, roundGaps, warmLoad } from './http-load.js'
import { startBare, startDurableCapture, startHedgelog } from './processes.js'
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
 * a bare fastify route parsing the same POST, measured in turns with it in the same run, and
 * `/batch/` of 100 events on the ingest role; and the same single-event load on the ceiling that
 * fastify and better-sqlite3 alone reach for a durable acknowledgement, which the ingest role is
 * held against: the two are measured in the same rounds (bare, ingest, ceiling), so that the
 * points between them compare shares of the same bare run. Servers on core 0, autocannon (64
 * connections, 16 for batches) on core 1.
 */
export const captureFigures = async (durationMs: number): Promise<Figure[]> => {
  const installed = await install()
  const bare = await startBare()
  try {
    const single = JSON.stringify(pageview(1, installed.token))
    const batch = JSON.stringify({ api_key: installed.token, batch: Array.from({ length: 100 }, (_, i) => pageview(i)) })
    const bareLoad = { url: `${bare.address}/capture/`, method: 'POST', bodies: [single], connections: 64, durationMs } as const

    // The ingest role reads tokens from read models another process built: build them first.
    const builder = await startHedgelog(installed.dir, '0,1')
    await projected(builder.address)
    await builder.stop()

    // The ceiling, in the same rounds: the same libraries doing only a durable, group-committed append.
    const ingest = await startHedgelog(installed.dir, '0', 'ingest')
    const [ingestCapture, durable, ingestBatch] = await (async () => {
      const ceiling = await startDurableCapture(installed.dir).catch(async (error: unknown) => { await ingest.stop(); throw error })
      try {
        const [capture, durable] = await compareEachWithBare(bareLoad, [{ ...bareLoad, url: `${ingest.address}/capture/` }, { ...bareLoad, url: `${ceiling.address}/capture/` }])
        const batched = await warmLoad({ url: `${ingest.address}/batch/`, method: 'POST', bodies: [batch], connections: 16, durationMs })
        return [capture!, durable!, batched] as const
      } finally {
        await ceiling.stop()
        await ingest.stop()
      }
    })()
    const below = roundGaps(durable, ingestCapture)

    const service = await startHedgelog(installed.dir, '0')
    const defaultCapture = await compareWithBare(bareLoad, { ...bareLoad, url: `${service.address}/capture/` }).finally(() => service.stop())

    return [
      { name: 'bare fastify POST (same capture body), 64 connections', value: ingestCapture.bare.perSecond, unit: 'req/s', note: 'the median round of the first comparison' },
      measured(TARGETS.captureIngest, ingestCapture.percent, comparisonNote(ingestCapture)),
      {
        name: '/capture/ ceiling: fastify and better-sqlite3 alone, a durable group-committed append', value: durable.percent, unit: '% of bare POST',
        note: `${comparisonNote(durable)} (bench/durable-capture-server.ts)`,
      },
      measured(TARGETS.captureBelowCeiling, below.median,
        `the median of the rounds' gaps (${below.rounds.map((points) => points.toFixed(1)).join(', ')}), each against that round's bare run: ${ingestCapture.percent.toFixed(1)} % on serve --roles ingest against ${durable.percent.toFixed(1)} % for the ceiling`),
      measured(TARGETS.captureDefault, defaultCapture.percent, comparisonNote(defaultCapture)),
      measured(TARGETS.batchIngest, ingestBatch.perSecond * 100, `${Math.round(ingestBatch.perSecond)} batches/s, 16 connections`),
    ]
  } finally {
    await bare.stop()
    installed.remove()
  }
}
