import t from 'tap'
import { FlagDefinitionCache } from '../../src/decide/flag-cache.js'
import type { ReadModels } from '../../src/readstore/read-models.js'

/** Read models holding one environment's flags, whose projectors' stamp the test moves by hand. */
const models = (options: { local: boolean }) => {
  const state = {
    stamp: 'p1',
    version: 1,
    flags: [{ id: 1, environment_id: 7, key: 'a', name: 'a', active: true, deleted: false, ensure_experience_continuity: false, filters: { groups: [{ properties: [] }] }, version: 1 }],
    reads: 0,
  }
  const fake = {
    stamp: () => (options.local ? state.stamp : null),
    get: async (collection: string) => {
      state.reads++
      if (collection === 'flag_set_versions') return { id: '7', environment_id: 7, version: state.version }
      return { environment_id: 7, types: [] }
    },
    find: async () => {
      state.reads++
      return state.flags.slice()
    },
  }
  return { state, models: fake as unknown as ReadModels }
}

t.test('with the projectors in this process, a current entry is reused without a read until they move', async (t) => {
  const { state, models: read } = models({ local: true })
  const cache = new FlagDefinitionCache(read)
  const first = await cache.forEnvironment(7)
  const readsAfterFirst = state.reads
  t.equal(await cache.forEnvironment(7), first)
  t.equal(await cache.forEnvironment(7), first)
  t.equal(state.reads, readsAfterFirst, 'no read while the stamp stands')

  state.flags = [{ ...state.flags[0]!, key: 'b', version: 2 }]
  state.version = 2
  state.stamp = 'p2'
  const changed = await cache.forEnvironment(7)
  t.same(changed.definitions.flags.map((flag) => flag.key), ['b'], 'a moved stamp reads the new definitions')
  const readsAfterChange = state.reads
  t.equal(await cache.forEnvironment(7), changed)
  t.equal(state.reads, readsAfterChange)

  state.stamp = 'p3'
  t.equal(await cache.forEnvironment(7), changed, 'a stamp moved by other events keeps the compiled entry')
  t.ok(state.reads > readsAfterChange, 'but reads the version again to know it')
})

t.test('with the projectors elsewhere, every request reads the version', async (t) => {
  const { state, models: read } = models({ local: false })
  const cache = new FlagDefinitionCache(read)
  await cache.forEnvironment(7)
  const reads = state.reads
  await cache.forEnvironment(7)
  t.ok(state.reads > reads)
  state.flags = [{ ...state.flags[0]!, key: 'c', version: 2 }]
  state.version = 2
  t.same((await cache.forEnvironment(7)).definitions.flags.map((flag) => flag.key), ['c'])
})

t.test('currentNow answers at once only while the entry is known current', async (t) => {
  const { state, models: read } = models({ local: true })
  const cache = new FlagDefinitionCache(read)
  t.equal(cache.currentNow(7), undefined, 'nothing before a first read')
  const entry = await cache.forEnvironment(7)
  t.equal(cache.currentNow(7), entry)
  state.stamp = 'p2'
  t.equal(cache.currentNow(7), undefined, 'not once the projectors moved')
  await cache.forEnvironment(7)
  t.equal(cache.currentNow(7), entry, 'the same entry, found current again')
  t.equal(new FlagDefinitionCache(models({ local: false }).models).currentNow(7), undefined)
})
