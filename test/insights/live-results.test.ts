import t from 'tap'
import { CAPTURED_COLLECTIONS, captureAndSettle, event } from '../projections/support/captured.js'
import { deliveryWorld } from '../delivery/support.js'
import { httpReceiver } from '../support/receiver.js'
import { reportText, type Report } from '../../src/delivery/report.js'

const TRENDS = {
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup' }], interval: 'day', dateRange: { date_from: '2024-03-01', date_to: '2024-03-03' } },
}
const FUNNEL = {
  kind: 'InsightVizNode',
  source: {
    kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }],
    dateRange: { date_from: '2024-03-01', date_to: '2024-03-03' }, funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
  },
}
const at = (day: number, hour = 10) => `2024-03-0${day}T${String(hour).padStart(2, '0')}:00:00.000Z`

t.test('an insight on a dashboard shows its result; new events show after a refresh; its subscription delivers its numbers', async (t) => {
  const w = await deliveryWorld(t)
  const env = w.environmentId
  await captureAndSettle(w.log, w.models, env, [event('signup', 'ann', { timestamp: at(1) }), event('signup', 'bob', { timestamp: at(2) })])

  const created = await w.api.post(`/api/environments/${env}/insights/`, { name: 'Signups', query: TRENDS, dashboards: [w.dashboard.id] })
  t.equal(created.status, 201)
  const dashboard = (await w.api.get(`/api/environments/${env}/dashboards/${w.dashboard.id}/?refresh=force_blocking`)).body
  const tile = dashboard.tiles.find((one: { insight: { id: number } | null }) => one.insight?.id === created.body.id)
  t.ok(tile, 'the insight is a tile of the dashboard')
  t.match(tile.insight, { name: 'Signups', result: [{ data: [1, 1, 0], count: 2 }], is_cached: false })

  await captureAndSettle(w.log, w.models, env, [event('signup', 'cat', { timestamp: at(3) })])
  const cached = (await w.api.get(`/api/environments/${env}/insights/${created.body.id}/`)).body
  t.match(cached, { result: [{ count: 2 }], is_cached: true }, 'the default read answers from the cache')
  const refreshed = (await w.api.get(`/api/environments/${env}/insights/${created.body.id}/?refresh=true`)).body
  t.match(refreshed, { result: [{ data: [1, 1, 1], count: 3 }], is_cached: false }, 'a refresh counts the new event')

  const receiver = await httpReceiver(t)
  const subscription = await w.api.post(w.base, {
    insight: created.body.id, dashboard: null, title: 'Daily signups', target_type: 'webhook', target_value: receiver.url,
    frequency: 'daily', start_date: '2027-01-05T09:00:00Z',
  })
  t.equal(subscription.status, 201, subscription.raw)
  const delivered = await w.api.post(`${w.base}${subscription.body.id}/test-delivery/`, {})
  t.match(delivered.body, { status: 'delivered' })
  const payload = JSON.parse(receiver.received[0]!.body)
  t.match(payload, {
    type: 'subscription.delivery', dashboard: null,
    insight: { id: created.body.id, name: 'Signups', kind: 'TrendsQuery', result: [{ data: [1, 1, 1], count: 3 }], table: { columns: ['Series', '1-Mar-2024', '2-Mar-2024', '3-Mar-2024', 'Total'], rows: [['signup', '1', '1', '1', '3']] } },
  })
  t.equal(payload.insights.length, 1)
})

t.test('a dashboard\'s delivery carries its insights\' results as tables, at most six, beside its text cards', async (t) => {
  const w = await deliveryWorld(t)
  const env = w.environmentId
  await captureAndSettle(w.log, w.models, env, [
    event('signup', 'ann', { timestamp: at(1) }), event('purchase', 'ann', { timestamp: at(1, 12) }), event('signup', 'bob', { timestamp: at(2) }),
  ])
  await w.api.patch(`/api/environments/${env}/dashboards/${w.dashboard.id}/`, { tiles: [{ text: { body: 'Read me first' } }] })
  const funnel = await w.api.post(`/api/environments/${env}/insights/`, { name: 'Signup to purchase', query: FUNNEL, dashboards: [w.dashboard.id] })
  t.equal(funnel.status, 201)
  for (let i = 0; i < 6; i++) {
    t.equal((await w.api.post(`/api/environments/${env}/insights/`, { name: `Signups ${i}`, query: TRENDS, dashboards: [w.dashboard.id] })).status, 201)
  }
  const receiver = await httpReceiver(t)
  const id = await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  t.match((await w.api.post(`${w.base}${id}/test-delivery/`, {})).body, { status: 'delivered' })
  const payload = JSON.parse(receiver.received[0]!.body)
  t.equal(payload.insights.length, 6, 'six insights, as PostHog sends')
  t.match(payload.insights[0], { name: 'Signup to purchase', kind: 'FunnelsQuery', table: { columns: ['Step', 'Persons', 'Conversion'], rows: [['1. signup', '2', '100.0 %'], ['2. purchase', '1', '50.0 %']] } })
  t.match(payload.dashboard, { tiles: [{ text: 'Read me first' }] })
  const text = reportText(payload as Report)
  t.match(text, /^Numbers: dashboard "Weekly numbers", sent every day\./, 'e-mail and Slack say what it is')
  t.match(text, /Signup to purchase\n {4}Step +Persons +Conversion\n {4}1\. signup +2 +100\.0 %\n {4}2\. purchase +1 +50\.0 %/, 'and show each insight as a table')
  t.match(text, /- Read me first/)
  t.match(reportText(payload as Report, 'slack'), /Signup to purchase\n```\nStep +Persons +Conversion\n/, 'Slack gets each table in a code block, so its columns line up')
})
