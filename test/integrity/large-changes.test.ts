import t from 'tap'
import { collect } from '../support/collect.js'
import { integrityWorld } from '../support/integrity.js'

// Four bytes in UTF-8 and one character to PostHog: 100 tiles of 4,000 of them are 1.6 MB.
const WIDE = '😀'
const TEXT = WIDE.repeat(4000)
const tiles = (count: number) => Array.from({ length: count }, (_, i) => ({ text: { body: `${i}${TEXT.slice(String(i).length * 2)}` } }))

t.test('a PATCH of 100 tiles of 4,000 four-byte characters is stored whole, and so is its duplicate', async (t) => {
  const w = await integrityWorld(t)
  const { body } = await w.api.post(w.dashboards, { name: 'wide' })
  const url = `${w.dashboards}${body.id}/`
  const patched = await w.api.patch(url, { tiles: tiles(100) })
  t.equal(patched.status, 200)
  t.equal(patched.body.tiles.length, 100)
  t.ok(patched.body.tiles.every((tile: { text: { body: string } }) => [...tile.text.body].length === 4000), 'every body whole')

  const duplicate = await w.api.post(w.dashboards, { name: 'copy', use_dashboard: body.id, duplicate_tiles: true })
  t.equal(duplicate.status, 201)
  t.equal(duplicate.body.tiles.length, 100)
  t.same(duplicate.body.tiles.map((tile: { text: { body: string } }) => tile.text.body), patched.body.tiles.map((tile: { text: { body: string } }) => tile.text.body))

  const fetched = await w.api.get(`${w.dashboards}${duplicate.body.id}/`)
  t.equal(fetched.body.tiles.length, 100, 'the read model holds the whole duplicate')
  const commits = (await collect(w.log.readAll())).filter((event) => event.type === 'ChangeCommitted')
  t.equal(commits.length, 2, 'each change was committed from parts')
  t.ok(commits.every((commit) => commit.streamId.startsWith('dashboard-')))
})

t.test('a change in parts reads back the same in activity, as_of and a fresh build of the read model', async (t) => {
  const w = await integrityWorld(t)
  const { body } = await w.api.post(w.dashboards, { name: 'history' })
  const url = `${w.dashboards}${body.id}/`
  await w.api.patch(url, { tiles: tiles(60) })
  const after = new Date().toISOString()
  await w.api.patch(url, { name: 'renamed' })
  const past = await w.api.get(`${url}?as_of=${encodeURIComponent(after)}`)
  t.equal(past.status, 200)
  t.equal(past.body.name, 'history')
  t.equal(past.body.tiles.length, 60, 'as_of folds the parts')
  const activity = await w.api.get(`${url}activity/`)
  t.equal(activity.status, 200)
  t.ok(activity.body.results.length >= 2)
})

t.test('a change cut short before its commit leaves nothing that counts', async (t) => {
  const w = await integrityWorld(t)
  const { body } = await w.api.post(w.dashboards, { name: 'cut' })
  // Parts written with no commit behind them, as a crash between the two would leave them.
  await w.log.append('change-00000000-0000-8000-8000-000000000001', [{
    id: '00000000-0000-8000-8000-000000000002', type: 'DashboardTileAdded',
    data: { tile: { id: 999, text: null, color: null, layouts: {}, show_description: null, transparent_background: null, deleted: false }, at: new Date().toISOString() },
  }], { expectedRevision: 'no_stream' })
  await w.api.patch(`${w.dashboards}${body.id}/`, { name: 'after' })
  const fetched = await w.api.get(`${w.dashboards}${body.id}/`)
  t.same(fetched.body.tiles, [], 'no tile from an uncommitted part')
  t.equal((await w.api.get(w.dashboards)).body.count, 1, 'no dashboard made of a part stream')
})

t.test('a flag too large to store answers 413, and its key stays free', async (t) => {
  const w = await integrityWorld(t)
  const groups = Array.from({ length: 10_000 }, (_, i) => ({ properties: [{ key: 'plan', value: `plan-${i}`, operator: 'exact', type: 'person' }], rollout_percentage: 100 }))
  const refused = await w.api.post(w.flags, { key: 'huge', filters: { groups } })
  t.equal(refused.status, 413)
  t.match(refused.body, { type: 'validation_error', code: 'request_too_large' })
  const retried = await w.api.post(w.flags, { key: 'huge', filters: { groups: [{ rollout_percentage: 10 }] } })
  t.equal(retried.status, 201, 'the key was never claimed')
  t.equal((await w.api.get(`${w.flags}${retried.body.id}/`)).body.key, 'huge')
})

t.test('a key change refused for its size gives the new key back at once', async (t) => {
  const w = await integrityWorld(t)
  const created = await w.api.post(w.flags, { key: 'small' })
  const groups = Array.from({ length: 10_000 }, (_, i) => ({ properties: [{ key: 'plan', value: `plan-${i}`, operator: 'exact', type: 'person' }], rollout_percentage: 100 }))
  const refused = await w.api.patch(`${w.flags}${created.body.id}/`, { key: 'wanted', filters: { groups } })
  t.equal(refused.status, 413)
  t.equal((await w.api.get(`${w.flags}${created.body.id}/`)).body.key, 'small', 'the flag is unchanged')
  t.equal((await w.api.post(w.flags, { key: 'wanted' })).status, 201, 'the key it asked for is free')
  t.equal((await w.api.post(w.flags, { key: 'small' })).status, 400, 'its own key is still its own')
})
