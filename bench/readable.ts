import { randomUUID } from 'node:crypto'
import type { Figure } from './figures.js'
import { client, percentile, type Install } from './setup.js'
import { measured, type Expected } from './targets.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export type Model = 'persons' | 'events' | 'sessions' | 'groups'

const MODELS: readonly Model[] = ['persons', 'events', 'sessions', 'groups']

/** How long after its acknowledgement a probe's change may take to be readable before it counts as unread. */
const GIVE_UP_MS = 10_000

export interface Readable {
  /** Per read model, ms from the acknowledgement to the first read that shows the probe's change. */
  readonly latencies: Record<Model, number[]>
  /** Per read model, probes still not readable after 10 s. */
  readonly unread: Record<Model, number>
  /** Probe captures refused for load (503) and sent again after their `Retry-After`. */
  readonly refused: number
}

/** Posts `body` to `/batch/` until it is acknowledged, as an SDK would: a 503 is sent again after its `Retry-After`. */
const acknowledged = async (address: string, body: string): Promise<{ refused: number }> => {
  for (let refused = 0; ; refused++) {
    const answer = await fetch(`${address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    await answer.arrayBuffer()
    if (answer.status === 200) return { refused }
    if (answer.status !== 503) throw new Error(`probe capture answered ${answer.status}`)
    await sleep(Number(answer.headers.get('retry-after') ?? 1) * 1000)
  }
}

/**
 * Every 250 ms until `durationMs` has passed, a probe captures a new person property, event,
 * session and group (`$groupidentify`), then polls the API until each read model shows it: the
 * time from the acknowledgement to readable, per read model.
 */
export const probeReadable = async (address: string, installed: Install, durationMs: number): Promise<Readable> => {
  const api = client(address, installed)
  const latencies: Record<Model, number[]> = { persons: [], events: [], sessions: [], groups: [] }
  const unread: Record<Model, number> = { persons: 0, events: 0, sessions: 0, groups: 0 }
  let refused = 0
  const deadline = performance.now() + durationMs
  const probes: Promise<void>[] = []
  for (let n = 0; performance.now() < deadline; n++) {
    const uuid = randomUUID()
    refused += (await acknowledged(address, JSON.stringify({
      api_key: installed.token,
      batch: [
        { event: 'probe', uuid, distinct_id: 'probe', properties: { $set: { probe: n }, $session_id: `probe-${n}`, $current_url: `https://probe.example/${n}` } },
        { event: '$groupidentify', distinct_id: 'probe', properties: { $group_type: 'company', $group_key: `probe-${n}`, $group_set: { probe: n } } },
      ],
    }))).refused
    const at = performance.now()
    const until = async (model: Model, seen: () => Promise<boolean>) => {
      while (performance.now() - at < GIVE_UP_MS) {
        if (await seen().catch(() => false)) { latencies[model].push(performance.now() - at); return }
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
  return { latencies, unread, refused }
}

/** One figure per read model: its p99 from acknowledgement to readable, infinite when a probe was never read. */
export const readableFigures = (readable: Readable, target: (model: Model) => Expected): Figure[] => MODELS.map((model) => measured(
  target(model),
  readable.unread[model] > 0 ? Number.POSITIVE_INFINITY : percentile(readable.latencies[model], 0.99),
  `p50 ${Math.round(percentile(readable.latencies[model], 0.5))} ms over ${readable.latencies[model].length} probes, ${readable.unread[model]} unread after 10 s`
    + (readable.refused > 0 ? `; ${readable.refused} probe captures refused for load and sent again` : ''),
))
