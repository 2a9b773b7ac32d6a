import t, { type Test } from 'tap'
import { issueApiKey } from '../../src/accounts/commands.js'
import { newEventId } from '../../src/kernel/ids.js'
import { client } from '../support/client.js'
import { collect } from '../support/collect.js'
import { context, world } from '../support/world.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`
  const create = async (body: unknown = { name: 'board' }) => (await api.post(base, body)).body as { id: number }
  const patch = (id: number, body: unknown) => api.patch(`${base}${id}/`, body)
  return { ...w, api, base, create, patch }
}

const refusal = (code: string, detail: string, attr: string) => ({ type: 'validation_error', code, detail, attr })
const tooLong = (max: number, attr: string) => refusal('max_length', `Ensure this field has no more than ${max} characters.`, attr)
const tooLarge = (max: number, attr: string) => refusal('invalid_input', `Keep this under ${max} bytes.`, attr)
const TOO_MANY_TILES = refusal('invalid_input', 'A dashboard holds at most 100 tiles. Remove one before adding another.', 'tiles')
const TEXT_TOO_LONG = refusal('max_length', 'Text body cannot exceed 4000 characters', 'text__body')

/** A one-key object whose JSON is `bytes` long as Python's json.dumps prints it: {"k": "…"} is 9 bytes around the text. */
const sized = (bytes: number, char = 'x', width = 1) => ({ k: char.repeat((bytes - 9) / width) })
const texts = (count: number, body = 'note') => Array.from({ length: count }, () => ({ text: { body } }))

t.test('a name of 400 characters is accepted and one of 401 refused, on create and on PATCH', async (t) => {
  const { api, base, create, patch } = await setup(t)
  t.equal((await api.post(base, { name: 'n'.repeat(400) })).status, 201)
  const refused = await api.post(base, { name: 'n'.repeat(401) })
  t.equal(refused.status, 400)
  t.same(refused.body, tooLong(400, 'name'))
  const { id } = await create()
  t.same((await patch(id, { name: 'n'.repeat(401) })).body, tooLong(400, 'name'))
  t.equal((await patch(id, { name: '😀'.repeat(400) })).status, 200, 'characters are counted as Python counts them')
})

t.test('a description of 4000 characters is accepted and one of 4001 refused', async (t) => {
  const { api, base, create, patch } = await setup(t)
  t.equal((await api.post(base, { name: 'd', description: 'd'.repeat(4000) })).status, 201)
  t.same((await api.post(base, { name: 'd', description: 'd'.repeat(4001) })).body, tooLong(4000, 'description'))
  t.same((await patch((await create()).id, { description: 'd'.repeat(4001) })).body, tooLong(4000, 'description'))
})

t.test('a text card of 4000 characters is accepted and one of 4001 refused with PostHog\'s message', async (t) => {
  const { create, patch } = await setup(t)
  const { id } = await create()
  t.equal((await patch(id, { tiles: texts(1, 't'.repeat(4000)) })).status, 200)
  const refused = await patch(id, { tiles: [{ text: { body: 'short' } }, { text: { body: 't'.repeat(4001) } }] })
  t.equal(refused.status, 400)
  t.same(refused.body, TEXT_TOO_LONG)
})

t.test('a tile colour of 400 characters, layouts of 4096 bytes and filters of 16384 bytes are the most accepted', async (t) => {
  const { api, base, create, patch } = await setup(t)
  const { id } = await create()
  t.equal((await patch(id, { tiles: [{ text: { body: 'b' }, color: 'c'.repeat(400), layouts: sized(4096) }] })).status, 200)
  t.same((await patch(id, { tiles: [{ text: { body: 'b' }, color: 'c'.repeat(401) }] })).body, tooLong(400, 'color'))
  t.same((await patch(id, { tiles: [{ text: { body: 'b' }, layouts: sized(4097) }] })).body, tooLarge(4096, 'layouts'))
  t.same((await patch(id, { tiles: [{ text: { body: 'b' }, layouts: sized(4095 + 6, 'é', 6) }] })).body, tooLarge(4096, 'layouts'),
    'non-ASCII text counts as its \\u escapes, as in Python\'s json.dumps')
  t.equal((await patch(id, { filters: sized(16384) })).status, 200)
  t.same((await patch(id, { filters: sized(16385) })).body, tooLarge(16384, 'filters'))
  t.same((await api.post(base, { name: 'f', filters: sized(16385) })).body, tooLarge(16384, 'filters'))
})

t.test('a dashboard holds 100 live tiles: the 101st is refused, and deleting one makes room', async (t) => {
  const { log, create, patch } = await setup(t)
  const { id } = await create()
  const full = await patch(id, { tiles: texts(100) })
  t.equal(full.status, 200)
  t.equal(full.body.tiles.length, 100)
  const allocated = async () => (await collect(log.readStream('sequence-dashboard_tile'))).length
  const before = await allocated()
  const refused = await patch(id, { tiles: texts(1) })
  t.equal(refused.status, 400)
  t.same(refused.body, TOO_MANY_TILES)
  t.equal(await allocated(), before, 'a refused tile takes no id from the log')
  const gone = full.body.tiles[0].id
  t.equal((await patch(id, { tiles: [{ id: gone, deleted: true }] })).status, 200)
  t.equal((await patch(id, { tiles: texts(1) })).status, 200, 'room for one again')
  t.same((await patch(id, { tiles: [{ id: gone, deleted: false }] })).body, TOO_MANY_TILES, 'restoring a tile counts as adding one')
  t.same((await patch(id, { tiles: [{ id: full.body.tiles[1].id, color: 'blue' }] })).status, 200, 'tiles of a full dashboard can still change')
})

t.test('more than 100 tiles in one request are refused, and so is a move into a full dashboard', async (t) => {
  const { log, installation, app, base, create, patch } = await setup(t)
  const { id } = await create()
  t.same((await patch(id, { tiles: texts(101) })).body, TOO_MANY_TILES)
  t.equal((await patch(id, { tiles: texts(100) })).status, 200)
  const source = await create({ name: 'source' })
  const tile = (await patch(source.id, { tiles: texts(1, 'moving') })).body.tiles[0]
  const legacy = client(app, { authorization: `Bearer ${(await issueApiKey(log, { userUuid: installation.user_uuid, scopes: null, label: 'legacy' }, context())).value}` })
  const moved = await legacy.patch(`${base}${source.id}/move_tile/`, { tile, toDashboard: id })
  t.equal(moved.status, 400)
  t.same(moved.body, TOO_MANY_TILES)
  t.equal((await legacy.get(`${base}${source.id}/`)).body.tiles.length, 1, 'the tile stays on its source')
})

t.test('a dashboard over the limit from before it may be trimmed, but not duplicated', async (t) => {
  const { log, models, api, base, create, patch } = await setup(t)
  const { id } = await create()
  const full = (await patch(id, { tiles: texts(100) })).body
  // A tile appended past the decider stands for a dashboard that grew before the limit existed.
  const extra = { ...full.tiles[0], id: 9999, text: { ...full.tiles[0].text, id: 9999, created_by: null, last_modified_by: null }, deleted: false }
  const appended = await log.append(`dashboard-${id}`, [{ id: newEventId(), type: 'DashboardTileAdded', data: { tile: extra, at: new Date().toISOString() } }], { expectedRevision: 'any' })
  await models.waitFor(appended.position, ['dashboards'])
  t.equal((await api.get(`${base}${id}/`)).body.tiles.length, 101)
  t.same((await api.post(base, { use_dashboard: id })).body, TOO_MANY_TILES)
  t.equal((await patch(id, { tiles: [{ id: 9999, deleted: true }] })).status, 200, 'tiles can still go')
  t.equal((await api.post(base, { use_dashboard: id })).status, 201, 'and then it duplicates')
})
