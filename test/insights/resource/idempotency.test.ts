import t from 'tap'
import { collect } from '../../support/collect.js'
import { integrityWorld } from '../../support/integrity.js'

type World = Awaited<ReturnType<typeof integrityWorld>>

const bases = (w: World) => {
  const environment = w.installation.environment_id
  return { insights: `/api/environments/${environment}/insights/`, dashboards: `/api/environments/${environment}/dashboards/` }
}

const typesInLog = async (w: World, type: string) => (await collect(w.log.readAll())).filter((event) => event.type === type)

t.test('a create with dashboards retried with its Idempotency-Key answers the first result: one insight, one tile each', async (t) => {
  const w = await integrityWorld(t)
  const { insights, dashboards } = bases(w)
  const a = (await w.api.post(dashboards, { name: 'a' })).body.id
  const b = (await w.api.post(dashboards, { name: 'b' })).body.id
  const keyed = w.keyed('create-insight-1')
  const first = await keyed.post(insights, { name: 'once', dashboards: [a, b] })
  const second = await keyed.post(insights, { name: 'once', dashboards: [a, b] })
  t.equal(first.status, 201)
  t.equal(second.status, 201)
  t.same(second.body, first.body, 'the same insight, with the same tiles')
  t.equal((await typesInLog(w, 'InsightCreated')).length, 1)
  t.equal((await typesInLog(w, 'DashboardInsightTilePlaced')).length, 2, 'each dashboard took its tile once')
  for (const id of [a, b]) t.equal((await w.api.get(`${dashboards}${id}/`)).body.tiles.length, 1)
})

t.test('concurrent creates with one key make one insight, and every answer shows its tiles', async (t) => {
  const w = await integrityWorld(t)
  const { insights, dashboards } = bases(w)
  const a = (await w.api.post(dashboards, { name: 'a' })).body.id
  const keyed = w.keyed('burst')
  const answers = await Promise.all(Array.from({ length: 6 }, () => keyed.post(insights, { name: 'burst', dashboards: [a] })))
  t.same([...new Set(answers.map((answer) => answer.status))], [201])
  t.equal(new Set(answers.map((answer) => answer.body.id)).size, 1)
  t.same([...new Set(answers.map((answer) => JSON.stringify(answer.body.dashboards)))], [JSON.stringify([a])])
  t.equal((await typesInLog(w, 'InsightCreated')).length, 1)
  t.equal((await w.api.get(`${dashboards}${a}/`)).body.tiles.length, 1)
})

t.test('a PATCH of dashboards retried with its key changes them once; another key is another command', async (t) => {
  const w = await integrityWorld(t)
  const { insights, dashboards } = bases(w)
  const a = (await w.api.post(dashboards, { name: 'a' })).body.id
  const b = (await w.api.post(dashboards, { name: 'b' })).body.id
  const { body } = await w.api.post(insights, { name: 'x', dashboards: [a] })
  const keyed = w.keyed('swap')
  const first = await keyed.patch(`${insights}${body.id}/`, { dashboards: [b] })
  const second = await keyed.patch(`${insights}${body.id}/`, { dashboards: [b] })
  t.same(first.body.dashboards, [b])
  t.same(second.body, first.body)
  t.equal((await typesInLog(w, 'InsightDashboardsChanged')).length, 2, 'the create and the swap')
  const again = await w.keyed('swap-back').patch(`${insights}${body.id}/`, { dashboards: [a] })
  t.same(again.body.dashboards, [a])
})

t.test('a dashboard deletion with delete_insights retried with its key deletes the insights once', async (t) => {
  const w = await integrityWorld(t)
  const { insights, dashboards } = bases(w)
  const a = (await w.api.post(dashboards, { name: 'a' })).body.id
  const { body } = await w.api.post(insights, { name: 'only here', dashboards: [a] })
  const keyed = w.keyed('delete-with-insights')
  t.equal((await keyed.patch(`${dashboards}${a}/`, { deleted: true, delete_insights: true })).status, 200)
  t.equal((await keyed.patch(`${dashboards}${a}/`, { deleted: true, delete_insights: true })).status, 200)
  t.equal((await typesInLog(w, 'InsightDeleted')).length, 1)
  t.equal((await w.api.get(`${insights}${body.id}/`)).status, 404)
})

t.test('two concurrent PATCHes putting an insight on one dashboard leave one tile there', async (t) => {
  const w = await integrityWorld(t)
  const { insights, dashboards } = bases(w)
  const a = (await w.api.post(dashboards, { name: 'a' })).body.id
  const { body } = await w.api.post(insights, { name: 'raced' })
  const answers = await Promise.all([1, 2, 3].map(() => w.api.patch(`${insights}${body.id}/`, { dashboards: [a] })))
  t.same(answers.map((answer) => answer.status), [200, 200, 200])
  t.equal((await w.api.get(`${dashboards}${a}/`)).body.tiles.length, 1, 'the dashboard shows the insight once')
  t.equal((await w.api.get(`${insights}${body.id}/`)).body.dashboard_tiles.length, 1)
})
