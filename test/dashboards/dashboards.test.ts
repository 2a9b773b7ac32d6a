import t, { type Test } from 'tap'
import { issueApiKey } from '../../src/accounts/commands.js'
import { context, world } from '../support/world.js'
import { client } from '../support/client.js'
import { addStranger } from '../support/members.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`
  return { ...w, api, base }
}

t.test('a minimal create answers 201 with PostHog\'s defaults', async (t) => {
  const { api, base, installation } = await setup(t)
  const created = await api.post(base, { name: 'My new dashboard', description: '' })
  t.equal(created.status, 201)
  t.match(created.body, {
    id: Number, name: 'My new dashboard', description: '', pinned: false, deleted: false, tags: [],
    creation_mode: 'default', restriction_level: 21, effective_restriction_level: 21, effective_privilege_level: 37,
    user_access_level: 'editor', is_shared: false, filters: {}, variables: {}, tiles: [],
    created_by: { uuid: installation.user_uuid, email: 'admin@hedgelog.local' },
  })
  t.match(created.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/, 'PostHog\'s time format')
  const fetched = await api.get(`${base}${created.body.id}/`)
  t.equal(fetched.status, 200)
  t.same(fetched.body, created.body, 'the response already reflected the write')
})

t.test('the same dashboards are reachable under /api/projects/ and /api/environments/', async (t) => {
  const { api, base, installation } = await setup(t)
  const { body } = await api.post(base, { name: 'twin' })
  const viaProject = await api.get(`/api/projects/${installation.project_id}/dashboards/${body.id}`)
  t.equal(viaProject.status, 200)
  t.equal(viaProject.body.name, 'twin')
  t.equal((await api.get(`/api/projects/@current/dashboards/${body.id}/`)).body.id, body.id, '@current names the caller\'s project')
})

t.test('ids are integers allocated in order and never reused', async (t) => {
  const { api, base } = await setup(t)
  const a = await api.post(base, { name: 'a' })
  const b = await api.post(base, { name: 'b' })
  t.equal(b.body.id, a.body.id + 1)
})

t.test('the list orders pinned first, then by name, and carries no tiles', async (t) => {
  const { api, base } = await setup(t)
  await api.post(base, { name: 'b dashboard', tiles: [] })
  await api.post(base, { name: 'a dashboard' })
  const pinned = await api.post(base, { name: 'Default', pinned: 'true' })
  t.equal(pinned.status, 201)
  t.equal(pinned.body.pinned, true, 'the string "true" is a boolean, as DRF reads it')
  const list = await api.get(base)
  t.equal(list.status, 200)
  t.same(list.body.results.map((d: { name: string }) => d.name), ['Default', 'a dashboard', 'b dashboard'])
  t.equal(list.body.count, 3)
  t.notOk('tiles' in list.body.results[0], 'list items have no tiles')
  t.notOk('filters' in list.body.results[0])
})

t.test('the list paginates with limit and offset and absolute links', async (t) => {
  const { api, base } = await setup(t)
  for (const name of ['a', 'b', 'c', 'd', 'e']) await api.post(base, { name })
  const first = await api.get(`${base}?limit=2`)
  t.equal(first.body.count, 5)
  t.same(first.body.results.map((d: { name: string }) => d.name), ['a', 'b'])
  t.equal(first.body.next, `http://localhost${base}?limit=2&offset=2`)
  t.equal(first.body.previous, null)
  const second = await api.get(`${base}?offset=2&limit=2`)
  t.same(second.body.results.map((d: { name: string }) => d.name), ['c', 'd'])
  t.equal(second.body.previous, `http://localhost${base}?limit=2`)
  const last = await api.get(`${base}?limit=2&offset=4`)
  t.equal(last.body.next, null)
  t.equal(last.body.previous, `http://localhost${base}?limit=2&offset=2`)
  const bad = await api.get(`${base}?limit=0&offset=-3`)
  t.equal(bad.body.results.length, 5, 'a limit that is not positive means the default of 100')
})

t.test('the list filters by tags and creation mode', async (t) => {
  const { api, base } = await setup(t)
  await api.post(base, { name: 'tagged', tags: [' Marketing ', 'marketing', 'growth'] })
  await api.post(base, { name: 'plain' })
  const tagged = await api.get(`${base}?tags=marketing`)
  t.same(tagged.body.results.map((d: { name: string }) => d.name), ['tagged'])
  t.same(tagged.body.results[0].tags, ['growth', 'marketing'], 'tags are trimmed, lower-cased and unique')
  await api.post(base, { use_template: 'DEFAULT_APP' })
  const templates = await api.get(`${base}?creation_mode=template`)
  t.same(templates.body.results.map((d: { creation_mode: string }) => d.creation_mode), ['template'])
})

t.test('PATCH deleted soft-deletes; the record stays and a PATCH deleted=false restores it', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { name: 'to delete' })
  const url = `${base}${body.id}/`
  await api.patch(url, { tiles: [{ text: { body: 'a card' } }] })
  const deleted = await api.patch(url, { deleted: true })
  t.equal(deleted.status, 200)
  t.equal(deleted.body.deleted, true)
  t.equal((await api.get(url)).status, 404)
  t.same((await api.get(base)).body.results, [])
  t.equal((await api.patch(url, { name: 'while deleted' })).status, 404, 'only a restoring PATCH reaches a deleted dashboard')
  const restored = await api.patch(url, { deleted: false })
  t.equal(restored.status, 200)
  const again = await api.get(url)
  t.equal(again.status, 200)
  t.equal(again.body.deleted, false)
  t.equal(again.body.tiles.length, 1, 'its tiles come back with it')
})

t.test('DELETE is refused with a bare 405 and changes nothing', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { name: 'keep me' })
  const response = await api.delete(`${base}${body.id}/`)
  t.equal(response.status, 405)
  t.equal(response.raw, '')
  t.equal((await api.get(`${base}${body.id}/`)).status, 200)
})

t.test('bad bodies get a validation error naming the field', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { name: 'x' })
  const filters = await api.patch(`${base}${body.id}/`, { filters: [1, 2] })
  t.equal(filters.status, 400)
  t.same(filters.body, { type: 'validation_error', code: 'invalid_input', detail: 'Filters must be a dictionary', attr: 'filters' })
  t.same((await api.get(`${base}${body.id}/`)).body.filters, {}, 'the stored filters are unchanged')
  const level = await api.post(base, { name: 'x', restriction_level: 22 })
  t.match(level.body, { type: 'validation_error', code: 'invalid_choice', attr: 'restriction_level' })
  const pinned = await api.post(base, { name: 'x', pinned: 'maybe' })
  t.match(pinned.body, { code: 'invalid_input', detail: 'Must be a valid boolean.', attr: 'pinned' })
  const tiles = await api.patch(`${base}${body.id}/`, { tiles: [{ text: { body: 5 } }] })
  t.match(tiles.body, { type: 'validation_error', attr: 'tiles__0__text__body' })
  const unknown = await api.post(base, { name: 'ignores extras', whatever: 1 })
  t.equal(unknown.status, 201, 'unknown fields are ignored')
})

t.test('a form-encoded PATCH works as JSON does', async (t) => {
  const { app, api, base, key, bearer } = await setup(t)
  const { body } = await api.post(base, { name: 'original' })
  const response = await app.inject({
    method: 'PATCH', url: `${base}${body.id}/`, payload: 'name=replaced',
    headers: { ...bearer(key.value), 'content-type': 'application/x-www-form-urlencoded' },
  })
  t.equal(response.statusCode, 200)
  t.equal(response.json().name, 'replaced')
})

t.test('creation_mode is read-only', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { use_template: 'DEFAULT_APP' })
  const patched = await api.patch(`${base}${body.id}/`, { name: 'renamed', creation_mode: 'duplicate' })
  t.equal(patched.body.name, 'renamed')
  t.equal(patched.body.creation_mode, 'template')
})

t.test('templates fill the dashboard; unknown templates and mixing with use_dashboard are refused', async (t) => {
  const { api, base } = await setup(t)
  const template = await api.post(base, { use_template: 'DEFAULT_APP' })
  t.equal(template.status, 201)
  t.equal(template.body.creation_mode, 'template')
  t.equal(template.body.name, 'Product analytics')
  t.equal(template.body.tiles.length, 6)
  const unknown = await api.post(base, { use_template: 'NOPE' })
  t.same(unknown.body, { type: 'validation_error', code: 'invalid_input', detail: 'Invalid template provided: NOPE', attr: 'use_template' })
  const both = await api.post(base, { use_template: 'DEFAULT_APP', use_dashboard: template.body.id })
  t.equal(both.status, 400)
  t.equal(both.body.detail, '`use_dashboard` and `use_template` cannot be used together')
  t.equal(both.body.attr, null)
  t.equal((await api.post(base, { use_template: 'DEFAULT_APP', use_dashboard: '' })).status, 400)
  t.equal((await api.post(base, { use_template: '' })).status, 201)
  t.equal((await api.post(base, { use_dashboard: template.body.id })).status, 201)
  t.equal((await api.post(base, { use_template: '', use_dashboard: template.body.id })).status, 201)
})

t.test('use_dashboard duplicates tiles; duplicate_tiles copies the text cards too', async (t) => {
  const { api, base } = await setup(t)
  const source = await api.post(base, { name: 'source', filters: { date_from: '-7d' } })
  const url = `${base}${source.body.id}/`
  await api.patch(url, { tiles: [{ text: { body: 'one' } }, { text: { body: 'two' } }, { text: { body: 'three' } }] })
  const three = (await api.get(url)).body.tiles
  await api.patch(url, { tiles: [{ id: three[2].id, deleted: true }] })
  const sourceTiles = (await api.get(url)).body.tiles
  t.equal(sourceTiles.length, 2)
  const copy = await api.post(base, { name: 'copy', use_dashboard: source.body.id })
  t.equal(copy.body.creation_mode, 'duplicate')
  t.same(copy.body.filters, { date_from: '-7d' })
  t.equal(copy.body.tiles.length, 2, 'a soft-deleted tile is not duplicated')
  t.notSame(copy.body.tiles.map((x: { id: number }) => x.id), sourceTiles.map((x: { id: number }) => x.id), 'new tile ids')
  t.same(copy.body.tiles.map((x: { text: { id: number } }) => x.text.id), sourceTiles.map((x: { text: { id: number } }) => x.text.id), 'same text cards')
  const deep = await api.post(base, { name: 'deep', use_dashboard: source.body.id, duplicate_tiles: true })
  t.notSame(deep.body.tiles.map((x: { text: { id: number } }) => x.text.id), sourceTiles.map((x: { text: { id: number } }) => x.text.id), 'new text cards')
  t.same(deep.body.tiles.map((x: { text: { body: string } }) => x.text.body), ['one', 'two'])
})

t.test('use_dashboard must name a live dashboard of the same environment', async (t) => {
  const w = await setup(t)
  const missing = await w.api.post(w.base, { use_dashboard: 12345 })
  t.same(missing.body, { type: 'validation_error', code: 'invalid_input', detail: 'Invalid value provided', attr: 'use_dashboard' })
  const other = await w.api.post(`/api/projects/${w.installation.project_id}/environments/`, { name: 'Staging' })
  const foreign = await w.api.post(`/api/environments/${other.body.id}/dashboards/`, { name: 'elsewhere' })
  t.equal((await w.api.post(w.base, { use_dashboard: foreign.body.id })).status, 400)
})

t.test('tiles: display fields change in place, a text tile without id is added', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { name: 'tiles' })
  const url = `${base}${body.id}/`
  const first = await api.patch(url, { tiles: [{ text: { body: 'first' } }] })
  const tileId = first.body.tiles[0].id
  const patched = await api.patch(url, {
    tiles: [{ id: tileId, color: 'red', is_cached: true, order: 9 }, { text: { body: 'an example' }, layouts: {}, color: 'red' }],
  })
  t.equal(patched.status, 200)
  const tiles = (await api.get(url)).body.tiles
  t.equal(tiles.length, 2)
  t.equal(tiles[0].color, 'red')
  t.equal(tiles[0].order, 0, 'order is read-only')
  t.equal(tiles[1].text.body, 'an example')
  t.equal((await api.patch(url, { tiles: [{ id: 999999, color: 'blue' }] })).status, 400, 'a tile of another dashboard is refused')
})

t.test('move_tile re-parents a tile and answers with the source; scoped keys may not call it', async (t) => {
  const w = await setup(t)
  const one = await w.api.post(w.base, { name: 'one' })
  const two = await w.api.post(w.base, { name: 'two' })
  const withTile = await w.api.patch(`${w.base}${one.body.id}/`, { tiles: [{ text: { body: 'moving' } }] })
  const tile = withTile.body.tiles[0]
  const scoped = await w.api.patch(`${w.base}${one.body.id}/move_tile/`, { tile, toDashboard: two.body.id })
  t.equal(scoped.status, 403)
  t.equal(scoped.body.detail, 'This action does not support Personal API Key access')
  const unscoped = await issueApiKey(w.log, { userUuid: w.installation.user_uuid, scopes: null, label: 'legacy' }, context())
  const legacyApi = client(w.app, w.bearer(unscoped.value))
  const moved = await legacyApi.patch(`${w.base}${one.body.id}/move_tile/`, { tile, toDashboard: two.body.id })
  t.equal(moved.status, 200)
  t.equal(moved.body.id, one.body.id)
  t.same(moved.body.tiles, [])
  const destination = await w.api.get(`${w.base}${two.body.id}/`)
  t.equal(destination.body.tiles.length, 1)
  t.equal(destination.body.tiles[0].id, tile.id, 'the same tile')
  t.equal(destination.body.tiles[0].text.id, tile.text.id)
  t.equal((await legacyApi.patch(`${w.base}${one.body.id}/move_tile/`, { tile, toDashboard: two.body.id })).status, 404, 'the tile is gone from the source')
})

t.test('scopes, missing records and other organizations', async (t) => {
  const w = await setup(t)
  const { body } = await w.api.post(w.base, { name: 'mine' })
  t.equal((await client(w.app, {}).get(w.base)).status, 401)
  const readOnly = client(w.app, w.bearer((await w.issueKey(['dashboard:read'])).value))
  t.equal((await readOnly.get(`${w.base}${body.id}/`)).status, 200)
  const refused = await readOnly.patch(`${w.base}${body.id}/`, { name: 'no' })
  t.same(refused.body, { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'dashboard:write'", attr: null })
  t.equal((await readOnly.delete(`${w.base}${body.id}/`)).status, 403, 'DELETE needs the write scope before its 405')
  t.equal((await w.api.get(`${w.base}999/`)).status, 404)
  t.same((await w.api.get(`${w.base}abc/`)).body, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })
  t.same((await w.api.get('/api/environments/abc/dashboards/')).body.detail, 'Project not found.')
  t.equal((await w.api.get('/api/environments/4444/dashboards/')).status, 404)
  const stranger = await addStranger(w)
  const foreign = await client(w.app, stranger.headers).get(`${w.base}${body.id}/`)
  t.equal(foreign.status, 403)
  t.equal(foreign.body.detail, "You don't have access to the project.")
})
