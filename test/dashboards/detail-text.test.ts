import t from 'tap'
import { basicUser } from '../../src/accounts/users.js'
import { basicUserText } from '../../src/accounts/user-lookup.js'
import { dashboardDetailText } from '../../src/dashboards/detail-text.js'
import { dashboardDetail } from '../../src/dashboards/serialize.js'
import type { Tile } from '../../src/dashboards/events.js'
import type { Dashboard } from '../../src/dashboards/state.js'
import { deepFreeze } from '../../src/kernel/deep-freeze.js'

const ada = deepFreeze({
  id: 1, uuid: 'u-ada', distinct_id: 'd-ada', first_name: 'Ada "the first"', last_name: 'Lovelace\u2028', email: 'ada@example.com',
  is_email_verified: true, hedgehog_config: { color: 'blue' }, role_at_organization: null, organization_id: 'o1', membership_level: 8,
})
// A user document without some fields: their keys are left out, as JSON.stringify leaves them out.
const bob = { id: 2, uuid: 'u-bob', distinct_id: 'd-bob', first_name: 'Bob', email: 'bob@example.com' }

const tile = (id: number, overrides: Partial<Tile> = {}): Tile => ({
  id,
  text: { id, body: `card ${id} \\ "quoted" \n\u0001 ✓ \ud800`, created_by: 'u-ada', last_modified_at: '2024-01-02T03:04:05.678Z', last_modified_by: 'u-bob' },
  color: null, layouts: { sm: { x: 0, y: id, w: 6, h: 5 } }, show_description: null, transparent_background: null, deleted: false,
  ...overrides,
})

const dashboard = (overrides: Partial<Dashboard> = {}): Dashboard => ({
  id: 7, environment_id: 3, name: 'Weekly "numbers"', description: 'a dashboard', pinned: true, restriction_level: 21,
  filters: { date_from: '-7d', properties: [{ key: 'a', value: [1, 2.5, -0, 1e21] }] }, variables: {}, tags: ['b', 'a'],
  creation_mode: 'default', tiles: [tile(1), tile(2, { deleted: true }), tile(3, { text: null, color: 'blue' })],
  collaborators: [{ id: 'c1', user_uuid: 'u-bob', level: 37, added_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-01T00:00:00Z' }],
  sharing: { access_token: 'tok', enabled: true, created_at: '2024-01-01T00:00:00Z' }, access_token: 'tok',
  deleted: false, created_by: 'u-ada', created_at: '2024-01-01T00:00:00.000001Z', updated_at: '2024-01-01T00:00:00Z',
  ...overrides,
})

const cases: Array<[string, Dashboard]> = [
  ['tiles with and without cards, one deleted', dashboard()],
  ['restricted to collaborators', dashboard({ restriction_level: 37 })],
  ['no tiles, unnamed, deleted', dashboard({ tiles: [], name: null, deleted: true })],
  ['a card by nobody, and a creator not found', dashboard({ created_by: 'u-gone', tiles: [tile(4, { text: { id: 4, body: '', created_by: null, last_modified_at: 'not a time', last_modified_by: null } })] })],
  ['fields missing from an older document', { ...dashboard(), variables: undefined, tiles: [{ ...tile(5), show_description: undefined }] } as unknown as Dashboard],
]

const actors = [{ uuid: 'u-ada', level: 8 }, { uuid: 'u-bob', level: 1 }, { uuid: 'u-eve', level: 1 }]

t.test('the detail text is JSON.stringify of the detail shape, byte for byte', async (t) => {
  const documents = [ada, bob]
  const shapes = new Map(documents.map((user) => [user.uuid, basicUser(user)]))
  const texts = new Map(documents.map((user) => [user.uuid, basicUserText(user)]))
  for (const [name, value] of cases) {
    for (const actor of actors) {
      t.equal(dashboardDetailText(value, actor, texts), JSON.stringify(dashboardDetail(value, actor, shapes)), `${name}, as ${actor.uuid}`)
    }
  }
})

t.test('insight tiles: the detail text holds each tile\'s insight text and refresh state, byte for byte', async (t) => {
  const documents = [ada, bob]
  const shapes = new Map(documents.map((user) => [user.uuid, basicUser(user)]))
  const texts = new Map(documents.map((user) => [user.uuid, basicUserText(user)]))
  const withInsights = deepFreeze(dashboard({
    tiles: [tile(1), tile(8, { text: null, insight: 40 }), tile(9, { text: null, insight: 41 }), tile(10, { text: null, insight: null })],
  }))
  const insights = new Map([[8, { text: JSON.stringify({ id: 40, name: 'Signups "weekly"', result: null }), last_refresh: '2024-01-08T12:00:00Z', is_cached: true }]])
  for (const actor of actors) {
    const text = dashboardDetailText(withInsights, actor, texts, insights)
    t.equal(text, JSON.stringify(dashboardDetail(withInsights, actor, shapes, insights)), `as ${actor.uuid}`)
    const shown = JSON.parse(text).tiles.map((shownTile: { id: number; order: number }) => [shownTile.id, shownTile.order])
    t.same(shown, [[1, 0], [8, 1], [10, 2]], 'a tile whose insight is not given is not shown; `insight: null` is a text card')
  }
  const refreshed = new Map([[8, { ...insights.get(8)!, is_cached: false }]])
  t.equal(JSON.parse(dashboardDetailText(withInsights, actors[0]!, texts, refreshed)).tiles[1].is_cached, false, 'a kept tile text follows its insight')
})

t.test('a user text is written once per frozen document, and never kept for one that may still change', async (t) => {
  t.equal(basicUserText(ada), JSON.stringify(basicUser(ada)))
  t.equal(basicUserText(ada), basicUserText(ada))
  const open = { ...bob }
  t.equal(basicUserText(open), JSON.stringify(basicUser(open)))
  open.first_name = 'Robert'
  t.equal(basicUserText(open), JSON.stringify(basicUser(open)), 'a document that is not frozen is written anew')
})

t.test('a kept tile is written again when its place or its users\' texts change', async (t) => {
  const kept = deepFreeze(dashboard())
  const texts = new Map([[ada.uuid, basicUserText(ada)], [bob.uuid, basicUserText(bob)]])
  const shapes = new Map([[ada.uuid, basicUser(ada)], [bob.uuid, basicUser(bob)]])
  const actor = actors[0]!
  t.equal(dashboardDetailText(kept, actor, texts), JSON.stringify(dashboardDetail(kept, actor, shapes)))
  t.equal(dashboardDetailText(kept, actor, texts), JSON.stringify(dashboardDetail(kept, actor, shapes)), 'again, from the texts written')
  const renamed = deepFreeze({ ...ada, first_name: 'Augusta' })
  const renamedTexts = new Map([[ada.uuid, basicUserText(renamed)], [bob.uuid, basicUserText(bob)]])
  const renamedShapes = new Map([[ada.uuid, basicUser(renamed)], [bob.uuid, basicUser(bob)]])
  t.equal(dashboardDetailText(kept, actor, renamedTexts), JSON.stringify(dashboardDetail(kept, actor, renamedShapes)), 'a renamed user')
  t.equal(dashboardDetailText(kept, actor, new Map()), JSON.stringify(dashboardDetail(kept, actor, new Map())), 'users not found')
  // The same tile objects in another place: a second dashboard holding them, first of its tiles.
  const moved = deepFreeze({ ...kept, id: 8, environment_id: 4, tiles: [kept.tiles[2]!, kept.tiles[0]!] })
  t.equal(dashboardDetailText(moved, actor, texts), JSON.stringify(dashboardDetail(moved, actor, shapes)), 'the same tiles elsewhere')
})

t.test('what a kept dashboard shows each caller is worked out for each caller', async (t) => {
  const texts = new Map([[ada.uuid, basicUserText(ada)], [bob.uuid, basicUserText(bob)]])
  const shapes = new Map([[ada.uuid, basicUser(ada)], [bob.uuid, basicUser(bob)]])
  for (const restriction of [21, 37]) {
    const kept = deepFreeze(dashboard({ restriction_level: restriction }))
    for (const round of [1, 2]) {
      for (const actor of actors) {
        t.equal(dashboardDetailText(kept, actor, texts), JSON.stringify(dashboardDetail(kept, actor, shapes)), `level ${restriction}, ${actor.uuid}, round ${round}`)
      }
    }
  }
})
