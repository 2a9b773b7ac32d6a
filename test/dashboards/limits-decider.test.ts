import t from 'tap'
import { dashboardDecider, type DashboardCommand } from '../../src/dashboards/decider.js'
import type { DashboardCreated, DashboardEvent, Tile } from '../../src/dashboards/events.js'
import { ValidationFailed } from '../../src/kernel/errors.js'
import { spec } from '../support/given.js'

const given = spec(dashboardDecider)
const at = '2024-05-01T00:00:00.000Z'
const actor = { uuid: 'owner', level: 15 }

const tile = (id: number, body = 'note'): Tile => ({
  id, text: { id, body, created_by: 'owner', last_modified_at: at, last_modified_by: null },
  color: null, layouts: {}, show_description: null, transparent_background: null, deleted: false,
})
const tiles = (count: number, from = 1) => Array.from({ length: count }, (_, i) => tile(from + i))

const data = (overrides: Partial<DashboardCreated['data']> = {}): DashboardCreated['data'] => ({
  dashboardId: 1, environmentId: 1, name: 'board', description: '', pinned: false, restriction_level: 21, filters: {}, variables: {},
  tags: [], creationMode: 'default', tiles: [], accessToken: 'token', createdBy: 'owner', at, ...overrides,
})
const created = (overrides: Partial<DashboardCreated['data']> = {}): DashboardEvent => ({ type: 'DashboardCreated', data: data(overrides) })
const update = (changes: Extract<DashboardCommand, { type: 'UpdateDashboard' }>['tiles']): DashboardCommand =>
  ({ type: 'UpdateDashboard', actor, changes: {}, deleted: undefined, tiles: changes, at })

t.test('creating a dashboard over a limit records nothing', async (t) => {
  given().when({ type: 'CreateDashboard', data: data({ tiles: tiles(101) }) }).thenThrows(t, ValidationFailed)
  given().when({ type: 'CreateDashboard', data: data({ name: 'n'.repeat(401) }) }).thenThrows(t, ValidationFailed)
  given().when({ type: 'CreateDashboard', data: data({ tiles: [tile(1, 'b'.repeat(4001))] }) }).thenThrows(t, ValidationFailed)
  given().when({ type: 'CreateDashboard', data: data({ tiles: tiles(100) }) }).then(t, [created({ tiles: tiles(100) })])
})

t.test('a tile added, moved in or restored on a full dashboard is refused', async (t) => {
  given(created({ tiles: tiles(100) })).when(update([{ kind: 'add', tile: tile(101) }])).thenThrows(t, ValidationFailed)
  const withDeleted = [...tiles(100), { ...tile(101), deleted: true }]
  given(created({ tiles: withDeleted })).when(update([{ kind: 'update', tileId: 101, changes: { deleted: false } }])).thenThrows(t, ValidationFailed)
})

t.test('a move is held to the limits where it is decided: the destination completes it whatever it holds', async (t) => {
  given(created({ tiles: tiles(100) })).when({ type: 'CompleteTileMove', tile: tile(500), fromDashboard: 2, moveId: 'm1', at })
    .then(t, [{ type: 'DashboardTileMovedIn', data: { tile: tile(500), fromDashboard: 2, moveId: 'm1', at } }])
})

t.test('a destination takes each move once', async (t) => {
  const moved = { type: 'DashboardTileMovedIn' as const, data: { tile: tile(500), fromDashboard: 2, moveId: 'm1', at } }
  given(created(), moved).when({ type: 'CompleteTileMove', tile: tile(500), fromDashboard: 2, moveId: 'm1', at }).then(t, [])
})

t.test('the count is decided on the state the command leaves: one out and one in fits', async (t) => {
  given(created({ tiles: tiles(100) })).when(update([{ kind: 'update', tileId: 1, changes: { deleted: true } }, { kind: 'add', tile: tile(101) }])).then(t, [
    { type: 'DashboardTileUpdated', data: { tileId: 1, changes: { deleted: true }, at } },
    { type: 'DashboardTileAdded', data: { tile: tile(101), at } },
  ])
})

t.test('a dashboard already over the limit can still lose and restyle tiles', async (t) => {
  given(created({ tiles: tiles(120) })).when(update([{ kind: 'update', tileId: 3, changes: { color: 'blue' } }])).then(t, [
    { type: 'DashboardTileUpdated', data: { tileId: 3, changes: { color: 'blue' }, at } },
  ])
  given(created({ tiles: tiles(120) })).when(update([{ kind: 'add', tile: tile(121) }])).thenThrows(t, ValidationFailed)
})
