import t from 'tap'
import { integrityWorld } from '../support/integrity.js'

const NAMES = ['Daily active users', 'Weekly active users', 'Retention', 'Growth accounting', 'Referring domains', 'Page views by path']

const paths = (w: Awaited<ReturnType<typeof integrityWorld>>) => {
  const environment = w.installation.environment_id
  return { insights: `/api/environments/${environment}/insights/`, dashboards: `/api/environments/${environment}/dashboards/` }
}

t.test('the product analytics template puts six real insights on the new dashboard as insight tiles', async (t) => {
  const w = await integrityWorld(t)
  const { insights, dashboards } = paths(w)
  const created = await w.api.post(dashboards, { use_template: 'DEFAULT_APP' })
  t.equal(created.status, 201)
  t.match(created.body, { name: 'Product analytics', creation_mode: 'template' })
  const tiles = created.body.tiles as { insight: { id: number; name: string; saved: boolean; dashboards: number[] } | null; text: unknown }[]
  t.same(tiles.map((tile) => tile.insight?.name), NAMES)
  t.ok(tiles.every((tile) => tile.text === null && tile.insight?.saved === true && tile.insight.dashboards.includes(created.body.id)))
  const listed = await w.api.get(`${insights}?dashboards=[${created.body.id}]`)
  t.equal(listed.body.count, 6, 'the insights API lists them on the dashboard')
  const computed = (await w.api.get(`${dashboards}${created.body.id}/?refresh=force_blocking`)).body
  for (const tile of computed.tiles) t.equal(tile.insight.query_status, null, `${tile.insight.name} runs`)
})

t.test('a template create retried with its Idempotency-Key makes one dashboard and one set of insights', async (t) => {
  const w = await integrityWorld(t)
  const { insights, dashboards } = paths(w)
  const keyed = w.keyed('template-once')
  const first = await keyed.post(dashboards, { use_template: 'DEFAULT_APP' })
  const again = await keyed.post(dashboards, { use_template: 'DEFAULT_APP' })
  t.equal(again.body.id, first.body.id)
  t.same(again.body.tiles.map((tile: { id: number }) => tile.id), first.body.tiles.map((tile: { id: number }) => tile.id))
  t.equal((await w.api.get(insights)).body.count, 6)
})

t.test('the website traffic template still fills text cards', async (t) => {
  const w = await integrityWorld(t)
  const created = await w.api.post(paths(w).dashboards, { use_template: 'WEBSITE_TRAFFIC' })
  t.equal(created.body.tiles.length, 4)
  t.ok(created.body.tiles.every((tile: { insight: unknown; text: unknown }) => tile.insight === null && tile.text !== null))
})
