import { randomUUID } from 'node:crypto'
import { pageview } from './capture.js'
import type { Figure } from './figures.js'
import { load } from './http-load.js'
import { pacedLoad } from './paced-load.js'
import { startHedgelog } from './processes.js'
import { client, install, projected } from './setup.js'
import { probeReadable, readableFigures } from './readable.js'
import { TARGETS, measured, verdict } from './targets.js'

/**
 * Connections the overload is offered over: as many clients at once as the server may hold, so
 * that a server falling behind sees its queue, rather than the load generator keeping it.
 */
const CONNECTIONS = 2000

/** A batch of 100 events named `event`, each person distinct within the batch. */
const batchOf = (token: string, event: string): string => JSON.stringify({
  api_key: token,
  batch: Array.from({ length: 100 }, (_, i) => ({ ...pageview(i), event, properties: { ...pageview(i).properties, $session_id: `s-${i}` } })),
})

/** Events named `event` that the events read model holds, counted by the query service. */
const counted = async (api: ReturnType<typeof client>, event: string): Promise<number> => {
  const answer = await api.post<{ results: { count: number }[] }>(`${api.base}/query/`, {
    query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event }], dateRange: { date_from: '2024-04-30', date_to: '2024-05-02' }, interval: 'day' },
  })
  return answer.results[0]?.count ?? 0
}

/**
 * Load of the default `serve` (both cores, as the sustained figure) relative to its highest
 * sustainable `/batch/` rate, measured first (closed loop, 64 connections, 10 s). Four fifths of
 * that rate are offered open loop for `seconds` while a probe times each read model from
 * acknowledgement to readable. Then twice that rate is offered for `seconds` over 2,000
 * connections, every request sent on schedule. Each
 * answer is counted by status; the accepted ones' p99 runs from when each was due. After the
 * load, once the projections are at the head, the run's events are counted through the query
 * service: every acknowledged one must be there.
 */
export const overloadFigures = async (seconds: number): Promise<Figure[]> => {
  const installed = await install()
  // The load stands for many clients: one address may hold as many connections as it opens.
  const service = await startHedgelog(installed.dir, '0,1', undefined, undefined, { HEDGELOG_CONNECTIONS_PER_ADDRESS: '0' })
  try {
    await projected(service.address)
    const api = client(service.address, installed)
    const url = `${service.address}/batch/`
    const run = randomUUID().slice(0, 8)
    const capacity = await load({ url, method: 'POST', bodies: [batchOf(installed.token, `capacity-${run}`)], connections: 64, durationMs: 10_000 })
    await projected(service.address)
    // Four fifths of the sustainable rate, with the read models probed all along.
    const steady = pacedLoad({
      url, method: 'POST', body: batchOf(installed.token, `steady-${run}`), rate: 0.8 * capacity.perSecond, connections: CONNECTIONS,
      durationMs: seconds * 1000, sleeps: true, countStatuses: true, rotate: true,
    })
    const readable = await probeReadable(service.address, installed, seconds * 1000 - 1000)
    const steadily = await steady
    await projected(service.address)
    const rate = 2 * capacity.perSecond
    const event = `overload-${run}`
    const offered = await pacedLoad({ url, method: 'POST', body: batchOf(installed.token, event), rate, connections: CONNECTIONS, durationMs: seconds * 1000, sleeps: true, countStatuses: true, rotate: true })
    const caughtUpAt = performance.now()
    await projected(service.address)
    const caughtUpSeconds = (performance.now() - caughtUpAt) / 1000
    const acknowledged = (offered.statuses[200] ?? 0) * 100
    const stored = await counted(api, event)
    const byStatus = Object.entries(offered.statuses).map(([status, count]) => `${count} × ${status}`).join(', ')
    const failed = Object.entries(offered.statuses).filter(([status]) => Number(status) === 408 || (Number(status) >= 500 && Number(status) !== 503)).reduce((sum, [, count]) => sum + count, 0)
    const steadyStatuses = Object.entries(steadily.statuses).map(([status, count]) => `${count} × ${status}`).join(', ')
    return [
      ...readableFigures(readable, TARGETS.readableAtEighty).map((figure) => ({
        ...figure, note: `${figure.note}; ${Math.round(0.8 * capacity.perSecond)} batches/s offered: ${steadyStatuses}, p99 ${Math.round(steadily.p99Ms)} ms`,
      })),
      measured(TARGETS.overloadFailures(seconds), failed + offered.unanswered + offered.refusedWithoutRetryAfter,
        `${Math.round(rate)} batches/s offered (2 × the ${Math.round(capacity.perSecond)}/s sustained closed loop): ${byStatus}; ${offered.unanswered} unanswered; ${offered.refusedWithoutRetryAfter} 503s without Retry-After; ${offered.reconnects} idle connections closed by the server and opened again`),
      measured(TARGETS.overloadAcceptedP99, offered.p99Ms, `p50 ${Math.round(offered.p50Ms)} ms, max ${Math.round(offered.maxMs)} ms, from when each request was due`),
      verdict(TARGETS.overloadKept, stored === acknowledged, `${acknowledged.toLocaleString('en-US')} events acknowledged, ${stored.toLocaleString('en-US')} counted by the query service; projections at the head ${caughtUpSeconds.toFixed(1)} s after the load`),
    ]
  } finally {
    await service.stop()
    installed.remove()
  }
}
