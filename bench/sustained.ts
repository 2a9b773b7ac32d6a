import autocannon from 'autocannon'
import { randomUUID } from 'node:crypto'
import { pageview } from './capture.js'
import type { Figure } from './figures.js'
import { startHedgelog } from './processes.js'
import { client, install, percentile, projected } from './setup.js'
import { TARGETS, measured } from './targets.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Model = 'persons' | 'events' | 'sessions' | 'groups'

/** Batches of 100 events per second: the sustained rate the default `serve` must keep up with. */
const RATE = 400

/**
 * `/batch/` of 100 events on the default `serve` (both cores: it is measured against the rate, not
 * against a bare route) at 40,000 events/s, open loop, for `seconds`, while a probe
 * sends a new person property, event, session and group (`$groupidentify`) every 250 ms and polls the
 * API until each read model shows it: the time from acknowledgement to readable, per read model.
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
    const background = autocannon({
      url: `${service.address}/batch/`, method: 'POST', body: batch, connections: 16, duration: seconds, overallRate: RATE,
      headers: { 'content-type': 'application/json' },
    })
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
    const failed = loaded.non2xx + loaded.errors + loaded.timeouts
    const rate = (loaded.requests.total * 100) / seconds
    return [
      measured(TARGETS.batchDefault(seconds), failed > 0 ? 0 : rate, `${loaded.requests.total} batches sent at ${RATE}/s, ${failed} failed, p99 ${loaded.latency.p99} ms`),
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
