import t from 'tap'
import { world } from '../support/world.js'
import { allProjectors } from '../../src/modules.js'

t.test('health reports both stores and every projection with its position and lag', async (t) => {
  const { app, log, models } = await world(t)
  await models.waitFor((await log.headPosition())!, ['environments', 'personal_api_keys', 'users', 'projects', 'organizations'])
  const response = await app.inject({ method: 'GET', url: '/_health' })
  t.equal(response.statusCode, 200)
  const body = response.json()
  t.equal(body.status, 'ok')
  t.equal(body.eventLog, 'sqlite')
  t.equal(body.readStore, 'sqlite')
  t.same(Object.keys(body.projections).sort(), allProjectors.map((p) => p.name).sort())
  t.ok(Object.keys(body.projections).includes('environments'))
  t.match(body.projections.personal_api_keys, { position: /^\d+$/, lag: 0 })
})

t.test('health answers 503 when a store is gone', async (t) => {
  const { app, store } = await world(t)
  await store.close()
  const response = await app.inject({ method: 'GET', url: '/_health' })
  t.equal(response.statusCode, 503)
  t.equal(response.json().status, 'error')
  t.same(response.json().problems, ['readStore'])
})
