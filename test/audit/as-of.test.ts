import t, { type Test } from 'tap'
import { liveDataDir, moment } from './support/live.js'

type Api = Awaited<ReturnType<typeof liveDataDir>>['api']
type Reply = Awaited<ReturnType<Api>>

/**
 * Runs each change, keeps what the API answered for the resource right after it (the detail
 * GET, or the change's own answer where the GET no longer shows a deleted resource) and a moment
 * after that; `as_of` each moment must answer exactly the same.
 */
const replayedStates = async (
  t: Test, api: Api, detail: string, steps: ReadonlyArray<readonly [label: string, change: () => Promise<Reply>]>,
): Promise<Array<{ label: string; at: string; answer: unknown }>> => {
  const seen: Array<{ label: string; at: string; answer: unknown }> = []
  for (const [label, change] of steps) {
    const changed = await change()
    t.ok(changed.status === 200 || changed.status === 201, `${label}: ${changed.status}`)
    const current = await api('GET', detail)
    seen.push({ label, answer: current.status === 200 ? current.json : changed.json, at: await moment() })
  }
  for (const { label, at, answer } of seen) {
    const past = await api('GET', `${detail}?as_of=${encodeURIComponent(at)}`)
    t.equal(past.status, 200, label)
    t.same(past.json, answer, `as_of ${label} answers what the API answered then`)
  }
  const before = await api('GET', `${detail}?as_of=2001-01-01T00:00:00Z`)
  t.equal(before.status, 404, 'before it existed')
  t.same(before.json, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })
  return seen
}

t.test('a subscription as of each moment: created, changed, deleted and restored', async (t) => {
  const { api } = await liveDataDir(t)
  const dashboard = (await api('POST', '/dashboards/', { name: 'Numbers' })).json
  const created = await api('POST', '/subscriptions/', {
    dashboard: dashboard.id, title: 'Weekly', target_type: 'email', target_value: 'ann@example.com',
    frequency: 'weekly', byweekday: ['monday'], start_date: '2099-01-05T09:00:00Z',
  })
  t.equal(created.status, 201, JSON.stringify(created.json))
  const detail = `/subscriptions/${created.json.id}/`
  await replayedStates(t, api, detail, [
    ['created', async () => created],
    ['retitled', () => api('PATCH', detail, { title: 'Daily', frequency: 'daily', byweekday: null })],
    ['deleted', () => api('PATCH', detail, { deleted: true })],
    ['restored', () => api('PATCH', detail, { deleted: false })],
  ])
})

t.test('a feature flag as of each moment: created, changed, deleted and restored', async (t) => {
  const { api } = await liveDataDir(t)
  const created = await api('POST', '/feature_flags/', { key: 'beta', name: 'Beta', filters: { groups: [{ rollout_percentage: 10 }] } })
  t.equal(created.status, 201, JSON.stringify(created.json))
  const detail = `/feature_flags/${created.json.id}/`
  await replayedStates(t, api, detail, [
    ['created', async () => created],
    ['rolled out further', () => api('PATCH', detail, { filters: { groups: [{ rollout_percentage: 60 }] }, active: false })],
    ['deleted', () => api('PATCH', detail, { deleted: true })],
    ['restored', () => api('PATCH', detail, { deleted: false })],
  ])
  t.equal((await api('GET', detail)).status, 200, 'live again after the restore')
})

t.test('an environment as of each moment of its settings, under both prefixes', async (t) => {
  const { api, init, server } = await liveDataDir(t)
  const seen = await replayedStates(t, api, '/', [
    ['as installed', () => api('GET', '/')],
    ['renamed', () => api('PATCH', '/', { name: 'Production' })],
    ['settings changed', () => api('PATCH', '/', { timezone: 'Europe/Berlin', anonymize_ips: true })],
    ['token reset', () => api('PATCH', '/reset_token/')],
  ])
  const project = `${server.address}/api/projects/${init.environment_id}/environments/${init.environment_id}/`
  for (const { label, at, answer } of seen) {
    const scoped = await fetch(`${project}?as_of=${encodeURIComponent(at)}`, { headers: { authorization: `Bearer ${init.personal_api_key}` } })
    t.equal(scoped.status, 200)
    t.same(await scoped.json(), answer, `as_of ${label} under /api/projects/`)
  }
  t.not((seen[2]!.answer as { api_token: string }).api_token, (seen[3]!.answer as { api_token: string }).api_token, 'the token before it was reset differs')
})
