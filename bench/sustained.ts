import { randomUUID } from 'node:crypto'
import { pageview } from './capture.js'
import type { Figure } from './figures.js'
import { answeredPerSecond, pacedLoad, type PacedResult } from './paced-load.js'
import { startHedgelog } from './processes.js'
import { client, install, percentile, projected } from './setup.js'
import { TARGETS, measured } from './targets.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Model = 'persons' | 'events' | 'sessions' | 'groups'

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
    const api = client(service.address, installed)
    const batch = JSON.stringify({
      api_key: installed.token,
      batch: Array.from({ length: 100 }, (_, i) => ({ ...pageview(i), properties: { ...pageview(i).properties, $session_id: `s-${i}`, $groups: { company: `c-${i % 10}` }, $set: { n: i } } })),
    })
    const background: Promise<PacedResult | Error> = pacedLoad({
      url: `${service.address}/batch/`, method: 'POST', body: batch, rate: RATE, connections: 32, durationMs: seconds * 1000, sleeps: true,
    }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
    const latencies: Record<Model, number[]> = { persons: [], events: [], sessions: [], groups: [] }
    const unread: Record<Model, number> = { persons: 0, events: 0, sessions: 0, groups: 0 }
    const deadline = performance.now() + seconds * 1000 - 1000
    const probes: Promise<void>[] = []
    for (let n = 0; performance.now() < deadline; n++) {
      const uuid = randomUUID()
      const answer = await fetch(`${service.address}/batch/`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          api_key: installed.token,
          batch: [
            { event: 'probe', uuid, distinct_id: 'probe', properties: { $set: { probe: n }, $session_id: `probe-${n}`, $current_url: `https://probe.example/${n}` } },
            { event: '$groupidentify', distinct_id: 'probe', properties: { $group_type: 'company', $group_key: `probe-${n}`, $group_set: { probe: n } } },
          ],
        }),
      })
      if (answer.status !== 200) throw new Error(`probe capture answered ${answer.status}`)
      const acknowledged = performance.now()
      const until = async (model: Model, seen: () => Promise<boolean>) => {
        while (performance.now() - acknowledged < 10_000) {
          if (await seen().catch(() => false)) { latencies[model].push(performance.now() - acknowledged); return }
          await sleep(5)
        }
        unread[model]++
      }
      probes.push(
        until('persons', async () => (await api.get<{ results: { properties: Record<string, unknown> }[] }>(`${api.base}/persons/?distinct_id=probe`)).results[0]?.properties['probe'] === n),
        until('events', async () => (await api.get<{ id: string }>(`${api.base}/events/${uuid}/`)).id === uuid),
        until('sessions', async () => (await api.get<{ results: { name: string }[] }>(`${api.base}/sessions/values/?key=$entry_current_url&value=probe.example/${n}`)).results.length > 0),
        until('groups', async () => (await api.get<{ group_key: string }>(`${api.base}/groups/find/?group_type_index=0&group_key=probe-${n}`)).group_key === `probe-${n}`),
      )
      await sleep(250)
    }
    await Promise.all(probes)
    const loaded = await background
    const steady = loaded instanceof Error ? 0 : answeredPerSecond(loaded, STEADY_MARGIN_MS, seconds * 1000 - STEADY_MARGIN_MS) * 100
    return [
      measured(TARGETS.batchDefault(seconds), steady, loaded instanceof Error
        ? `the load failed: ${loaded.message}`
        : `${loaded.sent} batches offered at ${RATE}/s evenly spaced, ${loaded.unanswered} unanswered, `
          + `counted from ${STEADY_MARGIN_MS / 1000} s to ${seconds - STEADY_MARGIN_MS / 1000} s; p50 ${Math.round(loaded.p50Ms)} ms, p99 ${Math.round(loaded.p99Ms)} ms`),
      ...(Object.keys(latencies) as Model[]).map((model) => measured(
        TARGETS.readable(model),
        unread[model] > 0 ? Number.POSITIVE_INFINITY : percentile(latencies[model], 0.99),
        `p50 ${Math.round(percentile(latencies[model], 0.5))} ms over ${latencies[model].length} probes, ${unread[model]} unread after 10 s`,
      )),
    ]
  } finally {
    await service.stop()
    installed.remove()
  }
}
