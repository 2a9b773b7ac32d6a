import { pageview } from './capture.js'
import type { Figure } from './figures.js'
import { answeredPerSecond, pacedLoad, type PacedResult } from './paced-load.js'
import { startHedgelog } from './processes.js'
import { install, projected } from './setup.js'
import { probeReadable, readableFigures } from './readable.js'
import { TARGETS, measured } from './targets.js'

/**
 * Batches of 100 events offered per second: 1 % above the 40,000 events/s the default `serve`
 * must sustain, so that a server keeping up is not judged on whether one answer falls just inside
 * or just outside the counted window.
 */
const RATE = 404

/** The rate is counted from this long after the start to this long before the end of the run. */
const STEADY_MARGIN_MS = 5000

/**
 * `/batch/` of 100 events on the default `serve` (both cores: it is measured against the rate, not
 * against a bare route) offered at 40,400 events/s, open loop and evenly spaced, for `seconds`; the
 * rate is the batches answered per second between 5 s after the start and 5 s before the end.
 * Meanwhile a probe sends a new person property, event, session and group (`$groupidentify`)
 * every 250 ms and polls the API until each read model shows it: the time from acknowledgement
 * to readable, per read model.
 */
export const sustainedFigures = async (seconds: number): Promise<Figure[]> => {
  const installed = await install()
  const service = await startHedgelog(installed.dir, '0,1')
  try {
    await projected(service.address)
    const batch = JSON.stringify({
      api_key: installed.token,
      batch: Array.from({ length: 100 }, (_, i) => ({ ...pageview(i), properties: { ...pageview(i).properties, $session_id: `s-${i}`, $groups: { company: `c-${i % 10}` }, $set: { n: i } } })),
    })
    const background: Promise<PacedResult | Error> = pacedLoad({
      url: `${service.address}/batch/`, method: 'POST', body: batch, rate: RATE, connections: 32, durationMs: seconds * 1000, sleeps: true,
    }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
    const readable = await probeReadable(service.address, installed, seconds * 1000 - 1000)
    const loaded = await background
    const steady = loaded instanceof Error ? 0 : answeredPerSecond(loaded, STEADY_MARGIN_MS, seconds * 1000 - STEADY_MARGIN_MS) * 100
    return [
      measured(TARGETS.batchDefault(seconds), steady, loaded instanceof Error
        ? `the load failed: ${loaded.message}`
        : `${loaded.sent} batches offered at ${RATE}/s evenly spaced, ${loaded.unanswered} unanswered, `
          + `counted from ${STEADY_MARGIN_MS / 1000} s to ${seconds - STEADY_MARGIN_MS / 1000} s; p50 ${Math.round(loaded.p50Ms)} ms, p99 ${Math.round(loaded.p99Ms)} ms`),
      ...readableFigures(readable, TARGETS.readable),
    ]
  } finally {
    await service.stop()
    installed.remove()
  }
}
