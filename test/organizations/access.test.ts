import t from 'tap'
import { world } from '../support/world.js'
import { CALLERS, twoOrganizations, type Caller } from '../support/tenants.js'

type Request = { method: 'get' | 'post' | 'patch' | 'delete'; url: string; body?: unknown }

/**
 * Organization A has an owner, an admin and a member; organization B has its own owner. Every
 * route family is walked with each key against A's ids, and with A's keys against B's ids.
 */
const setup = async (t: Parameters<typeof world>[0]) => {
  const w = await twoOrganizations(t)
  const { a, b, callers } = w
  const dashboard = (await callers.owner.post(`/api/environments/${a.environment_id}/dashboards/`, { name: 'A board' })).body
  const flag = (await callers.owner.post(`/api/projects/${a.environment_id}/feature_flags/`, { key: 'a-flag', filters: { groups: [{ rollout_percentage: 100 }] } })).body
  const bDashboard = (await callers.foreign.post(`/api/environments/${b.environment_id}/dashboards/`, { name: 'B board' })).body
  return { ...w, dashboard, flag, bDashboard }
}

t.test('each of A\'s route families answers each user of A by their level, and B\'s owner never reaches in', async (t) => {
  const w = await setup(t)
  const { a } = w
  const env = `/api/environments/${a.environment_id}`
  const org = `/api/organizations/${a.organization_id}`
  const cases: Array<[Request, Record<Caller, number>]> = [
    [{ method: 'get', url: `${org}/` }, { owner: 200, admin: 200, member: 200, foreign: 404 }],
    [{ method: 'patch', url: `${org}/`, body: { name: 'Acme' } }, { owner: 200, admin: 200, member: 403, foreign: 404 }],
    [{ method: 'get', url: `${org}/members/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: `${org}/invites/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'post', url: `${org}/invites/`, body: { target_email: 'new@example.com' } }, { owner: 201, admin: 201, member: 201, foreign: 403 }],
    [{ method: 'get', url: `${env}/` }, { owner: 200, admin: 200, member: 200, foreign: 404 }],
    [{ method: 'post', url: `/api/projects/${a.project_id}/environments/`, body: { name: 'Staging' } }, { owner: 201, admin: 201, member: 403, foreign: 404 }],
    [{ method: 'get', url: `${env}/dashboards/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: `${env}/dashboards/${w.dashboard.id}/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'patch', url: `${env}/dashboards/${w.dashboard.id}/`, body: { description: 'x' } }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'post', url: `${env}/dashboards/`, body: { name: 'n' } }, { owner: 201, admin: 201, member: 201, foreign: 403 }],
    [{ method: 'get', url: `${env}/dashboards/${w.dashboard.id}/collaborators/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: `${env}/dashboards/${w.dashboard.id}/sharing/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: `/api/projects/${a.environment_id}/feature_flags/${w.flag.id}/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: `${env}/subscriptions/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: `${env}/surveys/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: `${env}/persons/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: `${env}/events/` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: `/api/feature_flag/local_evaluation?token=${a.project_api_key}` }, { owner: 200, admin: 200, member: 200, foreign: 403 }],
    [{ method: 'get', url: '/api/personal_api_keys/@current/' }, { owner: 200, admin: 200, member: 200, foreign: 200 }],
    [{ method: 'get', url: '/api/users/@me/' }, { owner: 200, admin: 200, member: 200, foreign: 200 }],
  ]
  for (const [request, expected] of cases) {
    for (const caller of CALLERS) {
      const api = w.callers[caller]
      const response = request.method === 'get' || request.method === 'delete' ? await api[request.method](request.url) : await api[request.method](request.url, request.body)
      t.equal(response.status, expected[caller], `${caller} ${request.method.toUpperCase()} ${request.url}`)
      if (response.status >= 400) t.match(response.body, { type: String, code: String, detail: String }, 'in PostHog\'s error shape')
    }
  }
})

t.test('lists show each caller their own organization only', async (t) => {
  const w = await setup(t)
  const mine = await w.callers.member.get('/api/organizations/')
  t.same(mine.body.results.map((o: { id: string }) => o.id), [w.a.organization_id])
  t.equal(mine.body.results[0].membership_level, 1)
  const theirs = await w.callers.foreign.get('/api/organizations/')
  t.same(theirs.body.results.map((o: { id: string }) => o.id), [w.b.organization_id])
  const projects = await w.callers.foreign.get('/api/projects/')
  t.same(projects.body.results.map((p: { id: number }) => p.id), [w.b.project_id])
  const environments = await w.callers.owner.get('/api/environments/')
  t.notOk(environments.body.results.some((e: { id: number }) => e.id === w.b.environment_id))
  const current = await w.callers.foreign.get('/api/organizations/@current/')
  t.equal(current.body.id, w.b.organization_id)
  t.equal((await w.callers.foreign.get(`/api/organizations/${w.b.organization_id}/members/`)).body.count, 1)
  t.equal((await w.callers.owner.get(`/api/organizations/${w.a.organization_id}/members/`)).body.count, 3)
})

t.test('A\'s keys reach nothing of B through B\'s ids or B\'s token', async (t) => {
  const w = await setup(t)
  const { b } = w
  const owner = w.callers.owner
  t.equal((await owner.get(`/api/organizations/${b.organization_id}/`)).status, 404)
  t.equal((await owner.patch(`/api/organizations/${b.organization_id}/`, { name: 'taken' })).status, 404)
  t.equal((await owner.get(`/api/organizations/${b.organization_id}/members/`)).status, 403)
  t.equal((await owner.patch(`/api/organizations/${b.organization_id}/members/${b.user_uuid}/`, { level: 1 })).status, 403)
  t.equal((await owner.delete(`/api/organizations/${b.organization_id}/members/${b.user_uuid}/`)).status, 403)
  t.equal((await owner.post(`/api/organizations/${b.organization_id}/invites/`, { target_email: 'x@example.com' })).status, 403)
  t.equal((await owner.get(`/api/environments/${b.environment_id}/dashboards/${w.bDashboard.id}/`)).status, 403)
  t.equal((await owner.patch(`/api/environments/${b.environment_id}/dashboards/${w.bDashboard.id}/`, { name: 'x' })).status, 403)
  t.equal((await owner.get(`/api/environments/${w.a.environment_id}/dashboards/${w.bDashboard.id}/`)).status, 404, 'B\'s dashboard id under A\'s environment')
  t.equal((await owner.get(`/api/feature_flag/local_evaluation?token=${b.project_api_key}`)).status, 403, 'B\'s project token')
  t.equal((await owner.patch(`/api/organizations/${w.a.organization_id}/members/${b.user_uuid}/`, { level: 8 })).status, 404, 'B\'s user under A')
  t.equal((await owner.post(`/api/environments/${w.a.environment_id}/dashboards/${w.dashboard.id}/collaborators/`, { user_uuid: b.user_uuid, level: 37 })).status, 400)
  const untouched = await w.callers.foreign.get(`/api/environments/${b.environment_id}/dashboards/${w.bDashboard.id}/`)
  t.equal(untouched.body.name, 'B board')
  t.equal((await w.callers.foreign.get(`/api/organizations/${b.organization_id}/`)).body.name, 'Second company')
})
