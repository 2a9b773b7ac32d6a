import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BareDocument } from './bare-server.js'
import type { Figure } from './figures.js'
import { compareWithBare, comparisonNote } from './http-load.js'
import { startBare, startHedgelog } from './processes.js'
import { client, install, projected, type Install } from './setup.js'
import { TARGETS, measured, type Expected } from './targets.js'

/** The documents of the hot reads on a started service: a 10-tile dashboard, 25 subscriptions, a person; each read's target and URL. */
export const readCases = async (address: string, installed: Install): Promise<Array<[Expected, string]>> => {
  const api = client(address, installed)
  const dashboard = await api.post<{ id: number }>(`${api.base}/dashboards/`, { name: 'bench', description: 'a dashboard to read' })
  await api.patch(`${api.base}/dashboards/${dashboard.id}/`, { tiles: Array.from({ length: 10 }, (_, i) => ({ text: { body: `card ${i}` } })) })
  for (let i = 0; i < 25; i++) {
    await api.post(`${api.base}/subscriptions/`, {
      dashboard: dashboard.id, target_type: 'email', target_value: `u${i}@example.com`, frequency: 'weekly', start_date: '2022-01-01T00:00:00Z',
    })
  }
  await fetch(`${address}/capture/`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: installed.token, event: '$identify', distinct_id: 'ada', properties: { $set: { email: 'ada@example.com', plan: 'pro', seats: 12 } } }),
  })
  await projected(address)
  return [
    [TARGETS.dashboard, `${api.base}/dashboards/${dashboard.id}/`],
    [TARGETS.persons, `${api.base}/persons/?distinct_id=ada`],
    [TARGETS.subscriptions, `${api.base}/subscriptions/?limit=25`],
  ]
}

/**
 * Hot reads on the default `serve`: a 10-tile dashboard, a person by distinct id and a list of 25
 * subscriptions, each as a share of a bare fastify route answering exactly the same bytes (read
 * from Hedgelog first), measured in turns with it in the same run. Servers on core 0, autocannon
 * (64 connections) on core 1.
 */
export const readFigures = async (durationMs: number): Promise<Figure[]> => {
  const installed = await install()
  const service = await startHedgelog(installed.dir, '0')
  try {
    await projected(service.address)
    const api = client(service.address, installed)
    const cases = await readCases(service.address, installed)
    const documents: BareDocument[] = []
    for (const [, path] of cases) documents.push({ method: 'GET', path: path.split('?')[0]!, body: await api.raw(path) })
    const file = join(installed.dir, 'bare-documents.json')
    writeFileSync(file, JSON.stringify(documents))
    const bare = await startBare(file)
    const headers = { authorization: `Bearer ${installed.key}` }
    const figures: Figure[] = []
    try {
      for (const [expected, path] of cases) {
        const baseline = { url: `${bare.address}${path}`, headers, connections: 64, durationMs }
        const compared = await compareWithBare(baseline, { ...baseline, url: `${service.address}${path}` })
        figures.push(measured(expected, compared.percent, comparisonNote(compared)))
      }
    } finally {
      await bare.stop()
    }
    return figures
  } finally {
    await service.stop()
    installed.remove()
  }
}
