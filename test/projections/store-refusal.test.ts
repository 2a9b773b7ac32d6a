import t from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { newEventId } from '../../src/kernel/ids.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { digestProjection } from '../../projections/digest.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../src/readstore/projector.js'
import { quarantinedEvents } from '../../projections/quarantine.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../projections/registry.js'

type Json = { [key: string]: Json } | number

const nestedDoc = (depth: number): Json => {
  let doc: Json = 1
  for (let i = 0; i < depth; i++) doc = { a: doc }
  return doc
}

/** Stores each event's value nested as deep as the event asks, in an indexed collection. */
const nesting: Projector = {
  name: 'nesting',
  version: 1,
  collections: ['nests'],
  handles: ['Nested'],
  indexes: { nests: [['k']] },
  apply(view, event) {
    const k = String(event.data['k'])
    view.put('nests', k, { k, value: nestedDoc(Number(event.data['depth'])) as never })
  },
}

t.test('a document the read store refuses is found by replaying one event per commit, and quarantined; the rest is applied', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  const registry = new ProjectionRegistry(store)
  const errors: unknown[] = []
  const projections = new ProjectionSet({ log, store, registry, projectors: [nesting], onError: (_name, error) => errors.push(error) })
  await projections.start()
  t.teardown(async () => { await projections.stop(); await log.close(); await store.close() })
  const models = new ReadModels({ store, registry, projectors: [nesting], projections })

  const events = [['a', 3], ['b', 5], ['poison', 1500], ['c', 7], ['d', 2]] as const
  let poison = null
  for (const [k, depth] of events) {
    const written = await log.append(`nest-${k}`, [{ id: newEventId(), type: 'Nested', data: { k, depth } }])
    if (k === 'poison') poison = written.position
  }
  t.ok(await models.waitFor((await log.headPosition())!, ['nests'], 10_000), 'the projection moved past the refused event')
  t.same((await store.find('nests_v1_b1')).map((d) => d['k']), ['a', 'b', 'c', 'd'])
  const [record] = await quarantinedEvents(store, ['nesting@v1#1'])
  t.match(record, { position: `${poison!.commit}/${poison!.prepare}`, stream_id: 'nest-poison', part: null, error: 'DocumentRefused: nests_v1_b1/poison refused by the read store: nested deeper than 100 levels' })
  t.ok(errors.length >= 3, 'the refusal was retried before the search began')

  const live = await digestProjection(store, nesting, (await registry.read('nesting'))!.active)
  await projections.rebuild('nesting')
  t.same(await digestProjection(store, nesting, (await registry.read('nesting'))!.active), live, 'a rebuild skips the same event')
  t.equal((await quarantinedEvents(store, ['nesting@v1#2'])).length, 1)
})
