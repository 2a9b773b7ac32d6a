import type { Test } from 'tap'
import { captureAndSettle, event } from '../../projections/support/captured.js'
import { client } from '../../support/client.js'
import { world } from '../../support/world.js'

export const TRENDS = {
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup', name: 'signup' }], interval: 'day', dateRange: { date_from: '2024-03-01', date_to: '2024-03-03' } },
}
export const FUNNEL = {
  kind: 'InsightVizNode',
  source: {
    kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'signup', name: 'signup' }, { kind: 'EventsNode', event: 'purchase', name: 'purchase' }],
    dateRange: { date_from: '2024-03-01', date_to: '2024-03-03' }, funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
  },
}

export const at = (day: number, hour = 10) => `2024-03-0${day}T${String(hour).padStart(2, '0')}:00:00.000Z`

/**
 * A service with a few captured events (signups on the 1st and 2nd of March 2024, one purchase),
 * a client with an all-scopes key, and the environment's exports address.
 */
export const exportsWorld = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const env = w.installation.environment_id
  const base = `/api/environments/${env}/exports/`
  await captureAndSettle(w.log, w.models, env, [
    event('signup', 'ann', { timestamp: at(1) }), event('purchase', 'ann', { timestamp: at(1, 12), properties: { plan: '=HYPERLINK("x")' } }),
    event('signup', 'bob', { timestamp: at(2) }),
  ])
  const insight = async (fields: Record<string, unknown>): Promise<{ id: number; short_id: string }> => {
    const created = await api.post(`/api/environments/${env}/insights/`, fields)
    if (created.status !== 201) throw new Error(`insight not created: ${created.raw}`)
    return created.body
  }
  /** The content of an export as bytes, with its headers (through inject: the JSON client reads text). */
  const content = async (id: number, headers: Record<string, string> = w.bearer(w.key.value)) => {
    const response = await w.app.inject({ method: 'GET', url: `${base}${id}/content/`, headers })
    return { status: response.statusCode, headers: response.headers, bytes: response.rawPayload, text: response.payload }
  }
  return { ...w, api, env, base, insight, content }
}
