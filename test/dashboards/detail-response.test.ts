import t from 'tap'
import { basicUser, type BasicUser } from '../../src/accounts/users.js'
import type { Tile } from '../../src/dashboards/events.js'
import { DashboardDetailResponse, SharedViewResponse } from '../../src/dashboards/schemas.js'
import { dashboardDetail, sharedDashboard } from '../../src/dashboards/serialize.js'
import type { Dashboard } from '../../src/dashboards/state.js'
import { jsonWriter } from '../../src/http/json-writer.js'
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
const users = (...documents: Array<Record<string, unknown>>): Map<string, BasicUser> =>
  new Map(documents.map((user) => [String(user['uuid']), deepFreeze(basicUser(user))]))
const writeDetail = jsonWriter(DashboardDetailResponse)

t.test('the detail is written in the order of its shape, as JSON.stringify writes it, kept or not', async (t) => {
  const known = users(ada, bob)
  for (const [name, value] of cases) {
    const kept = deepFreeze(structuredClone(value))
    for (const actor of actors) {
      const expected = JSON.stringify(dashboardDetail(value, actor, known))
      t.equal(writeDetail(dashboardDetail(value, actor, known)), expected, `${name}, as ${actor.uuid}`)
      t.equal(writeDetail(dashboardDetail(kept, actor, known)), expected, `${name}, as ${actor.uuid}, kept`)
      t.equal(writeDetail(dashboardDetail(kept, actor, known)), expected, `${name}, as ${actor.uuid}, kept, again`)
    }
  }
  const shared = dashboard()
  t.equal(jsonWriter(SharedViewResponse)({ dashboard: sharedDashboard(shared, users(ada, bob)) }), JSON.stringify({ dashboard: sharedDashboard(shared, users(ada, bob)) }), 'the shared view')
})

t.test('insight tiles: each shows its insight and refresh state, written as JSON.stringify writes the shape', async (t) => {
  const known = users(ada, bob)
  const withInsights = deepFreeze(dashboard({
    tiles: [tile(1), tile(8, { text: null, insight: 40 }), tile(9, { text: null, insight: 41 }), tile(10, { text: null, insight: null })],
  }))
  const insights = new Map([[8, { insight: { id: 40, name: 'Signups "weekly"', result: null }, last_refresh: '2024-01-08T12:00:00Z', is_cached: true }]])
  for (const actor of actors) {
    const text = writeDetail(dashboardDetail(withInsights, actor, known, insights))
    t.equal(text, JSON.stringify(dashboardDetail(withInsights, actor, known, insights)), `as ${actor.uuid}`)
    const shown = JSON.parse(text).tiles.map((shownTile: { id: number; order: number }) => [shownTile.id, shownTile.order])
    t.same(shown, [[1, 0], [8, 1], [10, 2]], 'a tile whose insight is not given is not shown; `insight: null` is a text card')
    t.same(JSON.parse(text).tiles[1].insight, { id: 40, name: 'Signups "weekly"', result: null }, 'the insight as given')
  }
  const refreshed = new Map([[8, { ...insights.get(8)!, is_cached: false }]])
  t.equal(JSON.parse(writeDetail(dashboardDetail(withInsights, actors[0]!, known, refreshed))).tiles[1].is_cached, false, 'a kept dashboard\'s tile follows its insight')
  t.same(JSON.parse(writeDetail(dashboardDetail(withInsights, actors[0]!, known))).tiles.map((shownTile: { id: number }) => shownTile.id), [1, 10],
    'without insights, its insight tiles are hidden, kept or not')
  const shared = JSON.parse(jsonWriter(SharedViewResponse)({ dashboard: sharedDashboard(withInsights, known, insights) }))
  t.same(shared.dashboard.tiles[1].insight, { id: 40, name: 'Signups "weekly"', result: null }, 'the shared view shows it too')
  t.equal(jsonWriter(SharedViewResponse)({ insight: { id: 40, result: [1, 2] } }), '{"insight":{"id":40,"result":[1,2]}}', 'a shared insight\'s view')
})

t.test('a kept dashboard is shown anew when a tile\'s place or a user it mentions changes', async (t) => {
  const kept = deepFreeze(dashboard())
  const actor = actors[0]!
  const known = users(ada, bob)
  const detail = (value: Dashboard, mentioned: Map<string, BasicUser>) => JSON.parse(writeDetail(dashboardDetail(value, actor, mentioned))) as ReturnType<typeof dashboardDetail>
  t.equal(detail(kept, known).tiles[0]!.text!.created_by!.first_name, 'Ada "the first"')
  t.equal(dashboardDetail(kept, actor, known), dashboardDetail(kept, actor, known), 'the same users: the same shape')
  const renamed = users({ ...ada, first_name: 'Augusta' }, bob)
  t.equal(detail(kept, renamed).tiles[0]!.text!.created_by!.first_name, 'Augusta', 'a renamed user')
  t.equal(detail(kept, renamed).created_by!.first_name, 'Augusta', 'a renamed creator')
  t.same(detail(kept, new Map()).tiles[0]!.text, { ...detail(kept, known).tiles[0]!.text, created_by: null, last_modified_by: null }, 'users not found')
  // The same tile objects in another place: a second dashboard holding them, first of its tiles.
  const moved = deepFreeze({ ...kept, id: 8, environment_id: 4, tiles: [kept.tiles[2]!, kept.tiles[0]!] })
  const tiles = detail(moved, known).tiles
  t.same(tiles.map((t) => [t.id, t.dashboard_id, t.order]), [[3, 8, 0], [1, 8, 1]], 'the same tiles elsewhere')
  t.equal(tiles[1]!.text!.team, 4)
})

t.test('what a kept dashboard shows each caller is worked out for each caller', async (t) => {
  const expected = { 21: [[37, 'editor'], [37, 'editor'], [37, 'editor']], 37: [[37, 'editor'], [37, 'editor'], [21, 'viewer']] } as const
  for (const restriction of [21, 37] as const) {
    const kept = deepFreeze(dashboard({ restriction_level: restriction }))
    for (const round of [1, 2]) {
      actors.forEach((actor, i) => {
        const shown = JSON.parse(writeDetail(dashboardDetail(kept, actor, users(ada, bob)))) as { effective_privilege_level: number; user_access_level: string }
        t.same([shown.effective_privilege_level, shown.user_access_level], expected[restriction][i], `level ${restriction}, ${actor.uuid}, round ${round}`)
      })
    }
  }
})
