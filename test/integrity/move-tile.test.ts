import t from 'tap'
import { integrityWorld } from '../support/integrity.js'

type World = Awaited<ReturnType<typeof integrityWorld>>

const dashboardWithTiles = async (w: World, name: string, count: number) => {
  const created = await w.api.post(w.dashboards, { name })
  if (count === 0) return { id: created.body.id as number, tiles: [] as number[] }
  const patched = await w.api.patch(`${w.dashboards}${created.body.id}/`, { tiles: Array.from({ length: count }, (_, i) => ({ text: { body: `${name} ${i}` } })) })
  return { id: created.body.id as number, tiles: (patched.body.tiles as { id: number }[]).map((tile) => tile.id) }
}

const tileIds = async (w: World, id: number): Promise<number[]> =>
  ((await w.api.get(`${w.dashboards}${id}/`)).body.tiles as { id: number }[]).map((tile) => tile.id)

t.test('two concurrent moves of one tile to one dashboard: one 200, one 404, the tile there once', async (t) => {
  const w = await integrityWorld(t)
  for (let round = 0; round < 5; round++) {
    const source = await dashboardWithTiles(w, `source ${round}`, 1)
    const destination = await dashboardWithTiles(w, `destination ${round}`, 0)
    const tile = source.tiles[0]!
    const answers = await Promise.all([1, 2].map(() => w.legacyApi.patch(`${w.dashboards}${source.id}/move_tile/`, { tile: { id: tile }, toDashboard: destination.id })))
    t.same(answers.map((a) => a.status).sort(), [200, 404], `round ${round}: exactly one move succeeds`)
    t.same(await tileIds(w, destination.id), [tile], `round ${round}: the destination holds the tile once`)
    t.same(await tileIds(w, source.id), [], `round ${round}: the source no longer holds it`)
  }
})

t.test('twenty concurrent moves of one tile, ten to B and ten to C: one succeeds and the tile is on exactly one dashboard', async (t) => {
  const w = await integrityWorld(t)
  const source = await dashboardWithTiles(w, 'A', 1)
  const b = await dashboardWithTiles(w, 'B', 0)
  const c = await dashboardWithTiles(w, 'C', 0)
  const tile = source.tiles[0]!
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    w.legacyApi.patch(`${w.dashboards}${source.id}/move_tile/`, { tile: { id: tile }, toDashboard: i % 2 === 0 ? b.id : c.id })))
  const statuses = answers.map((a) => a.status)
  t.equal(statuses.filter((s) => s === 200).length, 1, 'one move succeeds')
  t.equal(statuses.filter((s) => s === 404).length, 19, 'the others find the tile gone, as PostHog answers a tile not on the source')
  const placed = [...await tileIds(w, source.id), ...await tileIds(w, b.id), ...await tileIds(w, c.id)]
  t.same(placed, [tile], 'the tile is on exactly one dashboard, once')
})

t.test('a burst of concurrent moves between three dashboards never puts a tile on two of them', async (t) => {
  const w = await integrityWorld(t)
  const boards = [await dashboardWithTiles(w, 'one', 4), await dashboardWithTiles(w, 'two', 4), await dashboardWithTiles(w, 'three', 0)]
  const all = boards.flatMap((board) => board.tiles)
  for (let round = 0; round < 3; round++) {
    const where = new Map<number, number>()
    for (const board of boards) for (const tile of await tileIds(w, board.id)) where.set(tile, board.id)
    await Promise.all(all.flatMap((tile) => boards.map((to) =>
      w.legacyApi.patch(`${w.dashboards}${where.get(tile)}/move_tile/`, { tile: { id: tile }, toDashboard: to.id }))))
    const placed = (await Promise.all(boards.map((board) => tileIds(w, board.id)))).flat()
    t.same([...placed].sort((x, y) => x - y), [...all].sort((x, y) => x - y), `round ${round}: every tile on exactly one dashboard`)
  }
})

t.test('a move to a full dashboard is refused before anything is written', async (t) => {
  const w = await integrityWorld(t)
  const source = await dashboardWithTiles(w, 'source', 1)
  const full = await dashboardWithTiles(w, 'full', 100)
  const refused = await w.legacyApi.patch(`${w.dashboards}${source.id}/move_tile/`, { tile: { id: source.tiles[0] }, toDashboard: full.id })
  t.equal(refused.status, 400)
  t.equal(refused.body.attr, 'tiles')
  t.same(await tileIds(w, source.id), source.tiles, 'the tile stays on its source')
  t.equal((await tileIds(w, full.id)).length, 100)
})

t.test('a moved tile can move back and on again, and lands once each time', async (t) => {
  const w = await integrityWorld(t)
  const a = await dashboardWithTiles(w, 'a', 1)
  const b = await dashboardWithTiles(w, 'b', 0)
  const tile = a.tiles[0]!
  for (const [from, to] of [[a, b], [b, a], [a, b]] as const) {
    t.equal((await w.legacyApi.patch(`${w.dashboards}${from.id}/move_tile/`, { tile: { id: tile }, toDashboard: to.id })).status, 200)
  }
  t.same(await tileIds(w, a.id), [])
  t.same(await tileIds(w, b.id), [tile])
  const activity = await w.api.get(`${w.dashboards}${b.id}/activity/`)
  t.equal(activity.status, 200, 'the destination\'s activity reads the moves')
})
