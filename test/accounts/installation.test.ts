import t, { type Test } from 'tap'
import { initialize, issueApiKey, readInstallation } from '../../src/accounts/commands.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { ValidationFailed } from '../../src/kernel/errors.js'
import { collect } from '../support/collect.js'
import { context } from '../support/world.js'

const openLog = (t: Test) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => log.close())
  return log
}

t.test('initializing twice keeps the first installation', async (t) => {
  const log = openLog(t)
  const first = await initialize(log, context())
  const second = await initialize(log, context())
  t.same(second, first)
  t.match(first, { project_id: first.environment_id, project_api_key: /^phc_[0-9A-Za-z]{43}$/ })
})

t.test('concurrent initializations agree on one organization', async (t) => {
  const log = openLog(t)
  const results = await Promise.all([initialize(log, context()), initialize(log, context()), initialize(log, context())])
  t.equal(new Set(results.map((r) => r.organization_id)).size, 1)
  const organizations = (await collect(log.readAll())).filter((e) => e.type === 'OrganizationCreated')
  t.equal(organizations.length, 1, 'one organization event in the log')
})

t.test('an installation cut short is completed by the next run', async (t) => {
  const log = openLog(t)
  const first = await initialize(log, context())
  const fresh = openLog(t)
  const installed = (await collect(log.readAll())).find((e) => e.type === 'InstallationInitialized')!
  await fresh.append('installation', [{ id: installed.id, type: installed.type, data: installed.data }], { expectedRevision: 'no_stream' })
  const completed = await initialize(fresh, context())
  t.same({ ...completed, project_api_key: 'x' }, { ...first, project_api_key: 'x' })
  t.ok((await collect(fresh.readAll())).some((e) => e.type === 'EnvironmentCreated'), 'the environment was created')
  t.same((await readInstallation(fresh))?.organizationId, first.organization_id)
})

t.test('keys get exactly the scopes asked for, and only their hash is stored', async (t) => {
  const log = openLog(t)
  const { user_uuid } = await initialize(log, context())
  const key = await issueApiKey(log, { userUuid: user_uuid, scopes: ['dashboard:read', 'subscription:read'], label: 'x' }, context())
  t.same(key.scopes, ['dashboard:read', 'subscription:read'])
  t.match(key.value, /^phx_[0-9A-Za-z]{48}$/)
  const stored = (await collect(log.readAll())).map((e) => JSON.stringify([e.data, e.metadata])).join()
  t.notOk(stored.includes(key.value), 'the raw key is not in the log')
})

t.test('unknown or missing scopes are refused like PostHog refuses them', async (t) => {
  const log = openLog(t)
  const { user_uuid } = await initialize(log, context())
  await t.rejects(issueApiKey(log, { userUuid: user_uuid, scopes: ['invalid'], label: 'x' }, context()),
    new ValidationFailed('Invalid scope: invalid', 'scopes'))
  await t.rejects(issueApiKey(log, { userUuid: user_uuid, scopes: [], label: 'x' }, context()), { attr: 'scopes', code: 'required' })
})
