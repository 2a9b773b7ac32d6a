import t, { type Test } from 'tap'
import { client } from '../support/client.js'
import { collect } from '../support/collect.js'
import { addMember } from '../support/members.js'
import { world } from '../support/world.js'

const LIMIT_REACHED = {
  type: 'authentication_error', code: 'permission_denied', attr: null,
  detail: 'You have reached the maximum limit of allowed environments for your current plan. Upgrade your plan to be able to create and manage more environments.',
}

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const envs = `/api/projects/${w.installation.project_id}/environments/`
  const allocated = async () => (await collect(w.log.readStream('sequence-environment'))).length
  return { ...w, api, envs, allocated }
}

t.test('a project holds 10 environments: with the first, nine more are created and the next is refused', async (t) => {
  const { api, envs, allocated } = await setup(t)
  for (let i = 2; i <= 10; i++) t.equal((await api.post(envs, { name: `env ${i}` })).status, 201, `environment ${i}`)
  const before = await allocated()
  const refused = await api.post(envs, { name: 'one too many' })
  t.equal(refused.status, 403)
  t.same(refused.body, LIMIT_REACHED)
  t.equal(await allocated(), before, 'a refused environment takes no id')
  t.equal((await api.get(envs)).body.count, 10)
})

t.test('an organization has one demo environment, outside the count of its project', async (t) => {
  const w = await setup(t)
  for (let i = 2; i <= 10; i++) await w.api.post(w.envs, { name: `env ${i}` })
  const member = client(w.app, (await addMember(w)).headers)
  t.equal((await member.post(w.envs, { name: 'Demo', is_demo: true })).status, 201, 'a full project still takes a demo')
  const second = await w.api.post(w.envs, { name: 'Demo 2', is_demo: true })
  t.equal(second.status, 403)
  t.same(second.body, LIMIT_REACHED)
})

t.test('concurrent creations are counted on the project\'s stream and never pass the limit', async (t) => {
  const { api, envs, models, log } = await setup(t)
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => api.post(envs, { name: `parallel ${i}` })))
  t.equal(answers.filter((answer) => answer.status === 201).length, 9)
  t.ok(answers.every((answer) => answer.status === 201 || (answer.status === 403 && answer.body.detail === LIMIT_REACHED.detail)))
  await models.waitFor((await log.headPosition())!, ['environments'])
  t.equal((await api.get(envs)).body.count, 10)
})
