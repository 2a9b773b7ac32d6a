import t from 'tap'
import { TokenResolver } from '../../src/ingestion/environments.js'
import type { ReadModels } from '../../src/readstore/read-models.js'
import { world } from '../support/world.js'

t.test('a token first missing is looked up again after the wait for projections, even when that wait ran out', async (t) => {
  const w = await world(t)
  let finds = 0
  // The environment is in the read model, but the first look misses it (as when it is projected
  // during the wait) and the wait itself times out (as when other projections lag).
  const models = Object.create(w.models) as ReadModels
  models.find = (async (...args: Parameters<ReadModels['find']>) => (finds++ === 0 ? [] : w.models.find(...args))) as ReadModels['find']
  models.waitFor = async () => false
  const resolver = new TokenResolver({ models, log: w.log }, { waitMs: 10 })
  const environmentId = await resolver.resolve(w.installation.project_api_key)
  t.equal(environmentId, w.installation.environment_id, 'the fresh look finds the environment')
  t.equal(finds, 2, 'one look before the wait, one after')
})

t.test('an unknown token is answered null after one bounded wait, and at once while the log has not moved', async (t) => {
  const w = await world(t)
  const resolver = new TokenResolver({ models: w.models, log: w.log }, { waitMs: 50 })
  t.equal(await resolver.resolve('phc_unknown'), null)
  const started = performance.now()
  t.equal(await resolver.resolve('phc_unknown'), null)
  t.ok(performance.now() - started < 40, 'the repeat does not wait again')
})
