import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SqliteEventLog } from '../src/eventlog/sqlite.js'
import { ownFilesOf } from '../src/readstore/sqlite-shards.js'
import { SqliteReadStore } from '../src/readstore/sqlite.js'
import { digestProjection } from '../projections/digest.js'
import { allProjectors } from '../src/modules.js'
import { requestRebuild } from '../projections/projection-set.js'
import { ProjectionRegistry } from '../projections/registry.js'
import { positionToString } from '../src/eventlog/port.js'
import { flags, personProperties } from './decide.js'
import type { Figure } from './figures.js'
import { ingestHistory } from './history.js'
import { openLoop } from './open-loop.js'
import { run, startHedgelog } from './processes.js'
import { client, install, percentile, projected } from './setup.js'
import { TARGETS, measured, verdict } from './targets.js'

/** Requests per second of each latency probe, open loop. */
const PROBE_RATE = 100
const IDLE_SETTLE_MS = 10_000
const IDLE_WINDOW_MS = 15_000
const STORE_LIMIT = fileURLToPath(new URL('./store-limit.js', import.meta.url))

const digests = async (store: SqliteReadStore, registry: ProjectionRegistry): Promise<Map<string, string>> => {
  const out = new Map<string, string>()
  for (const projector of allProjectors) {
    const entry = await registry.read(projector.name)
    out.set(projector.name, (await digestProjection(store, projector, entry!.active)).sha256)
  }
  return out
}

/**
 * A full rebuild in the default `serve` (both cores) over `total` captured events: the rate at which
 * every projection is rebuilt beside the live one and switched to, whether each rebuilt read model
 * has the digest of the live build, and `/decide` and dashboard `GET` p99 (open loop) during the
 * rebuild against their idle values.
 */
export const rebuildFigures = async (total: number): Promise<Figure[]> => {
  const installed = await install()
  const service = await startHedgelog(installed.dir, '0,1')
  const store = new SqliteReadStore({ path: join(installed.dir, 'readmodels.sqlite'), ownFiles: ownFilesOf(allProjectors) })
  const log = new SqliteEventLog({ path: join(installed.dir, 'events.sqlite') })
  try {
    await projected(service.address)
    const api = client(service.address, installed)
    for (const flag of flags) await api.post(`${api.base}/feature_flags/`, flag)
    const dashboard = await api.post<{ id: number }>(`${api.base}/dashboards/`, { name: 'bench' })
    await api.patch(`${api.base}/dashboards/${dashboard.id}/`, { tiles: Array.from({ length: 10 }, (_, i) => ({ text: { body: `card ${i}` } })) })
    await fetch(`${service.address}/capture/`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: installed.token, event: '$identify', distinct_id: 'ada', properties: { $set: personProperties } }),
    })

    const liveStarted = performance.now()
    await ingestHistory(service.address, installed.token, total)
    await projected(service.address)
    const liveSeconds = (performance.now() - liveStarted) / 1000

    const decide = () => fetch(`${service.address}/decide/?v=3`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: installed.token, distinct_id: 'ada', groups: {}, geoip_disable: true }),
    })
    const dashboardGet = () => fetch(`${service.address}${api.base}/dashboards/${dashboard.id}/`, { headers: { authorization: `Bearer ${installed.key}` } })
    // Idle means idle: the projection threads collect their garbage a few seconds after the live
    // build and again six seconds later; the window starts after both, and is long enough that
    // its p99 rests on fifteen slowest answers rather than five.
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS))
    const idleUntil = performance.now() + IDLE_WINDOW_MS
    const [idleDecide, idleDashboard] = await Promise.all([
      openLoop(decide, PROBE_RATE, () => performance.now() > idleUntil),
      openLoop(dashboardGet, PROBE_RATE, () => performance.now() > idleUntil),
    ])

    const registry = new ProjectionRegistry(store)
    const live = await digests(store, registry)
    const head = positionToString((await log.headPosition())!)
    const requested = new Map<string, number>()
    const rebuildStarted = performance.now()
    for (const projector of allProjectors) requested.set(projector.name, (await requestRebuild(registry, projector, head)).pending!.build)
    let rebuilt = false
    const watcher = (async () => {
      while (!rebuilt) {
        const entries = await Promise.all(allProjectors.map((projector) => registry.read(projector.name)))
        rebuilt = entries.every((entry, i) => entry!.active.build === requested.get(allProjectors[i]!.name))
        if (!rebuilt) await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    const [busyDecide, busyDashboard] = await Promise.all([
      openLoop(decide, PROBE_RATE, () => rebuilt),
      openLoop(dashboardGet, PROBE_RATE, () => rebuilt),
      watcher,
    ])
    const rebuildSeconds = (performance.now() - rebuildStarted) / 1000
    const after = await digests(store, registry)
    // The store's own share of the same work, over the same log, with nothing else running.
    await service.stop()
    const alone = JSON.parse(await run([STORE_LIMIT, join(installed.dir, 'events.sqlite'), join(installed.dir, 'store-limit.sqlite')], {})) as { events: number; seconds: number }
    const storeRate = alone.events / alone.seconds
    // The same with every secondary index created after the documents: what a bulk build that
    // defers its indexes could reach at best.
    const bulk = JSON.parse(await run([STORE_LIMIT, join(installed.dir, 'events.sqlite'), join(installed.dir, 'store-bulk.sqlite'), '--indexes-after'], {})) as { events: number; seconds: number }

    const idle = { decide: percentile(idleDecide.latencies, 0.99), dashboard: percentile(idleDashboard.latencies, 0.99) }
    const busy = { decide: percentile(busyDecide.latencies, 0.99), dashboard: percentile(busyDashboard.latencies, 0.99) }
    const failures = idleDecide.failures + idleDashboard.failures + busyDecide.failures + busyDashboard.failures
    return [
      { name: `live projection of ${total.toLocaleString('en-US')} captured events, ingested at full speed`, value: total / liveSeconds, unit: 'events/s' },
      {
        name: 'the store alone over the same log: the read models\' documents written by two threads', value: storeRate, unit: 'events/s',
        note: `better-sqlite3 only, ${alone.events.toLocaleString('en-US')} events in ${alone.seconds.toFixed(1)} s (bench/store-limit-work.ts)`,
      },
      {
        name: 'the store alone, secondary indexes created after the documents: a bulk build\'s best', value: bulk.events / bulk.seconds, unit: 'events/s',
        note: `${bulk.events.toLocaleString('en-US')} events in ${bulk.seconds.toFixed(1)} s, the indexes' creation included`,
      },
      measured(TARGETS.rebuild(total), total / rebuildSeconds,
        `${rebuildSeconds.toFixed(1)} s for every projection; ${((100 * total) / rebuildSeconds / storeRate).toFixed(0)} % of the store alone`),
      ...allProjectors.map((projector) => verdict(TARGETS.digest(projector.name), live.get(projector.name) === after.get(projector.name))),
      measured(TARGETS.decideUnderRebuild, failures > 0 ? Number.POSITIVE_INFINITY : busy.decide / idle.decide, `p99 ${busy.decide.toFixed(1)} ms vs ${idle.decide.toFixed(1)} ms idle at ${PROBE_RATE} req/s, ${failures} failed`),
      measured(TARGETS.dashboardUnderRebuild, failures > 0 ? Number.POSITIVE_INFINITY : busy.dashboard / idle.dashboard, `p99 ${busy.dashboard.toFixed(1)} ms vs ${idle.dashboard.toFixed(1)} ms idle at ${PROBE_RATE} req/s`),
    ]
  } finally {
    await log.close()
    await store.close()
    await service.stop()
    installed.remove()
  }
}
