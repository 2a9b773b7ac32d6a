import t from 'tap'
import type { Test } from 'tap'
import { routeTable } from '../../src/http/route-table.js'
import { client } from '../support/client.js'
import { CALLERS, twoOrganizations, type Caller } from '../support/tenants.js'
import { world } from '../support/world.js'
import { freshInvite, freshMember, legacyKey, projectedKey, seedEnvironment } from './support/fixtures.js'
import { NOT_TENANT_SCOPED, ROUTE_CASES, type Fresh, type RouteCase, type Target, type Tenant } from './support/route-cases.js'

type Api = ReturnType<typeof client>
type Answer = Awaited<ReturnType<Api['get']>>

/** The routes the walks below have requested, for the last test to hold against the route table. */
const walked = new Set<string>()

/**
 * Organization A (owner, admin, member) with two environments, organization B with its owner,
 * each environment filled with resources whose names carry a marker: `asecret`, `envtwo`, `bsecret`.
 */
const setup = async (t: Test) => {
  const w = await twoOrganizations(t)
  const { a, b, callers } = w
  const second = (await callers.owner.post(`/api/projects/${a.project_id}/environments/`, { name: 'envtwo staging' })).body
  const [first, other, colleague, bColleague] = [
    await freshMember(w, a.organization_id), await freshMember(w, a.organization_id), await freshMember(w, a.organization_id), await freshMember(w, b.organization_id),
  ]
  const keys = {
    owner: await legacyKey(w, a.user_uuid, 'asecret owner key'), admin: await legacyKey(w, w.admin.uuid, 'asecret admin key'),
    member: await legacyKey(w, w.member.uuid, 'asecret member key'), foreign: await legacyKey(w, b.user_uuid, 'bsecret owner key'),
  }
  const legacy = Object.fromEntries(CALLERS.map((caller) => [caller, client(w.app, w.bearer(keys[caller].value))])) as Record<Caller, Api>
  const A: Tenant = {
    ...await seedEnvironment(w, callers.owner, a.environment_id, a.project_api_key, 'asecret'),
    org: a.organization_id, project: a.project_id, colleague, collaborators: { owner: first, admin: other, member: first, foreign: first }, ownerKey: keys.owner.id,
  }
  const A2: Tenant = { ...A, ...await seedEnvironment(w, callers.owner, second.id, second.api_token, 'envtwo') }
  const B: Tenant = {
    ...await seedEnvironment(w, callers.foreign, b.environment_id, b.project_api_key, 'bsecret'),
    org: b.organization_id, project: b.project_id, colleague: bColleague, collaborators: { owner: bColleague, admin: bColleague, member: bColleague, foreign: bColleague }, ownerKey: keys.foreign.id,
  }
  const ownerOf = (tenant: Tenant) => (tenant.org === A.org ? { api: callers.owner, uuid: a.user_uuid } : { api: callers.foreign, uuid: b.user_uuid })
  const made = { member: [] as string[], invite: [] as string[], key: [] as string[] }
  const remember = async (tenant: Tenant, kind: keyof typeof made, id: Promise<string>) => {
    const value = await id
    if (tenant.org === B.org) made[kind].push(value)
    return value
  }
  const fresh: Fresh = {
    member: (tenant) => remember(tenant, 'member', freshMember(w, tenant.org)),
    invite: (tenant) => remember(tenant, 'invite', freshInvite(ownerOf(tenant).api, tenant.org)),
    key: (tenant) => remember(tenant, 'key', legacyKey(w, ownerOf(tenant).uuid, 'spare').then((key) => key.id)),
  }
  const secondOnly = await projectedKey(w, { userUuid: a.user_uuid, scopes: ['*'], label: 'envtwo only', scopedTeams: [A2.env] })
  return { ...w, A, A2, B, legacy, fresh, madeInB: made, secondOnly: client(w.app, w.bearer(secondOnly.value)) }
}

type World = Awaited<ReturnType<typeof setup>>

/** The markers and token of a tenant: none of them may appear in an answer given to anyone else. */
const secretsOf = (tenant: Tenant) => [tenant.marker, tenant.token]

const send = async (api: Api, method: RouteCase['method'], url: string, body?: unknown): Promise<Answer> => {
  switch (method) {
    case 'GET': return api.get(url)
    case 'DELETE': return api.delete(url)
    case 'POST': return api.post(url, body ?? {})
    case 'PATCH': return api.patch(url, body ?? {})
    case 'PUT': return api.put(url, body ?? {})
  }
}

/** Checks the status, PostHog's error shape when there is a body, and that no hidden string shows. */
const expectAnswer = (t: Test, answer: Answer, status: number, label: string, hidden: readonly string[]) => {
  t.equal(answer.status, status, label)
  if (answer.status >= 400 && answer.raw !== '' && answer.status !== 405) t.match(answer.body, { type: String, code: String, detail: String }, `${label}: PostHog's error shape`)
  t.same(hidden.filter((secret) => answer.raw.includes(secret)), [], `${label}: nothing of another tenant`)
}

/** Sends one route case as one caller at one target; returns how many pairs it walked. */
const walk = async (t: Test, w: World, c: RouteCase, caller: Caller, target: Target, status: number, hidden: readonly string[], label: string) => {
  walked.add(c.route)
  const api = (c.legacy ? w.legacy : w.callers)[caller]
  const { url, body } = await c.request(target, caller, w.fresh)
  expectAnswer(t, await send(api, c.method, url, body), status, `${label}: ${caller} ${c.method} ${url}`, hidden)
  return 1
}

t.test('every /api/ route answers each user of A by level, and B\'s owner, with nothing of another tenant', async (t) => {
  const w = await setup(t)
  const { A, A2, B } = w
  let pairs = 0
  for (const c of ROUTE_CASES) {
    for (const caller of CALLERS) {
      const hidden = caller === 'foreign' ? [...secretsOf(A), ...secretsOf(A2)] : [...secretsOf(B), ...(c.environment ? secretsOf(A2) : [])]
      pairs += await walk(t, w, c, caller, { path: A, item: A }, c.expect[caller], hidden, 'A\'s ids')
    }
  }
  for (const c of ROUTE_CASES.filter((c) => !c.global)) {
    for (const caller of ['owner', 'admin', 'member'] as const) {
      pairs += await walk(t, w, c, caller, { path: B, item: B }, c.expect.foreign, secretsOf(B), 'B\'s ids with A\'s key')
    }
  }
  for (const c of ROUTE_CASES.filter((c) => c.crossed !== undefined)) {
    pairs += await walk(t, w, c, 'owner', { path: A, item: B }, c.crossed!, secretsOf(B), 'B\'s id under A\'s path')
    if (c.environment) pairs += await walk(t, w, c, 'owner', { path: A, item: A2 }, c.crossed!, secretsOf(A2), 'environment 2\'s id under environment 1')
  }
  for (const c of ROUTE_CASES.filter((c) => c.environment && !c.legacy)) {
    const { url, body } = await c.request({ path: A, item: A }, 'owner', w.fresh)
    expectAnswer(t, await send(w.secondOnly, c.method, url, body), 403, `a key scoped to environment 2: ${c.method} ${url}`, secretsOf(A))
    pairs += 1
    if (c.method !== 'GET') continue
    const own = await c.request({ path: A2, item: A2 }, 'owner', w.fresh)
    expectAnswer(t, await send(w.secondOnly, c.method, own.url), c.expect.owner, `a key scoped to environment 2, in it: ${own.url}`, [...secretsOf(A), ...secretsOf(B)])
    pairs += 1
  }
  t.comment(`${pairs} (route, credential, ids) requests walked`)

  const bOwner = w.callers.foreign
  const bBase = `/api/environments/${B.env}`
  const dashboard = await bOwner.get(`${bBase}/dashboards/${B.dashboard}/`)
  t.match(dashboard.body, { name: 'bsecret board', description: '', tiles: [{ id: B.tile }] }, 'B\'s dashboard is as it was')
  t.match((await bOwner.get(`${bBase}/dashboards/${B.dashboard}/sharing/`)).body, { enabled: false })
  t.same((await bOwner.get(`${bBase}/dashboards/${B.restricted}/collaborators/`)).body, [], 'nobody joined B\'s restricted dashboard')
  t.match((await bOwner.get(`${bBase}/feature_flags/${B.flag}/`)).body, { key: 'bsecret-flag', version: 1 })
  t.match((await bOwner.get(`${bBase}/surveys/${B.survey}/`)).body, { name: 'bsecret survey', description: '' })
  t.match((await bOwner.get(`${bBase}/subscriptions/${B.subscription}/`)).body, { frequency: 'weekly' })
  t.equal((await bOwner.get(`${bBase}/subscriptions/${B.subscription}/deliveries/`)).body.count, 0, 'no test delivery of B\'s subscription')
  t.match((await bOwner.get(`${bBase}/`)).body, { name: 'Default project', api_token: B.token }, 'B\'s environment keeps its name and token')
  t.equal((await bOwner.get(`/api/projects/${B.project}/environments/`)).body.count, 1, 'no environment was added to B\'s project')
  t.equal((await bOwner.get(`/api/organizations/${B.org}/`)).body.name, 'Second company')
  const members = (await bOwner.get(`/api/organizations/${B.org}/members/`)).body.results.map((m: { user: { uuid: string } }) => m.user.uuid)
  t.same([B.colleague, ...w.madeInB.member].filter((uuid) => !members.includes(uuid)), [], 'every member of B is still there')
  const invites = (await bOwner.get(`/api/organizations/${B.org}/invites/`)).body.results.map((i: { id: string }) => i.id)
  t.same(w.madeInB.invite.filter((id) => !invites.includes(id)), [], 'every invite of B is still there')
  for (const key of [B.ownerKey, ...w.madeInB.key]) t.equal((await w.legacy.foreign.get(`/api/personal_api_keys/${key}/`)).status, 200, 'B\'s keys are not revoked')
  const envTwo = await w.callers.owner.get(`/api/environments/${A2.env}/dashboards/${A2.dashboard}/`)
  t.match(envTwo.body, { name: 'envtwo board', description: '', tiles: [{ id: A2.tile }] }, 'environment 2\'s dashboard is as it was')
})

t.test('a project token reaches its own environment only: local evaluation, definitions, surveys, remote config, decide and capture', async (t) => {
  const w = await setup(t)
  const { A, A2, B } = w
  const flagKeys = async (tenant: Tenant) => {
    const api = tenant.org === B.org ? w.callers.foreign : w.callers.owner
    const keys = (await api.get(`/api/environments/${tenant.env}/feature_flags/`)).body.results.map((f: { key: string }) => f.key).sort()
    t.ok(keys.includes(`${tenant.marker}-flag`), `${tenant.marker}'s flags are listed`)
    return keys
  }
  const expected = { [A.marker]: await flagKeys(A), [A2.marker]: await flagKeys(A2), [B.marker]: await flagKeys(B) }
  const keysOf = (flags: Array<{ key: string }>) => flags.map((f) => f.key).sort()
  const definitions = ['GET /api/feature_flag/local_evaluation', 'GET /flags/definitions']
  for (const route of definitions) {
    walked.add(route)
    const path = route.slice('GET '.length)
    for (const caller of ['owner', 'admin', 'member'] as const) {
      const api = w.callers[caller]
      const own = await api.get(`${path}?token=${A.token}`)
      expectAnswer(t, own, 200, `${caller} ${path} with A's token`, [...secretsOf(B), ...secretsOf(A2)])
      t.same(keysOf(own.body.flags), expected[A.marker], 'exactly the flags of A\'s first environment')
      const second = await api.get(`${path}?token=${A2.token}`)
      expectAnswer(t, second, 200, `${caller} ${path} with environment 2's token`, [A.marker, A.token, ...secretsOf(B)])
      t.same(keysOf(second.body.flags), expected[A2.marker], 'exactly the flags of A\'s second environment')
      expectAnswer(t, await api.get(`${path}?token=${B.token}`), 403, `${caller} ${path} with B's token`, secretsOf(B))
    }
    for (const token of [A.token, A2.token]) expectAnswer(t, await w.callers.foreign.get(`${path}?token=${token}`), 403, `B's owner ${path} with A's tokens`, [...secretsOf(A), ...secretsOf(A2)])
    const unnamed = await w.callers.foreign.get(path)
    expectAnswer(t, unnamed, 200, `B's owner ${path} without a token`, [...secretsOf(A), ...secretsOf(A2)])
    t.same(keysOf(unnamed.body.flags), expected[B.marker], 'is B\'s own environment')
  }

  const remote = (env: number, flag: string | number, token: string) => `/api/environments/${env}/feature_flags/${flag}/remote_config?token=${token}`
  const owner = w.callers.owner
  expectAnswer(t, await owner.get(remote(A.env, 'asecret-flag', A.token)), 200, 'remote config of A\'s flag by A\'s token', [...secretsOf(B), ...secretsOf(A2)])
  t.same(JSON.parse((await owner.get(remote(A.env, 'asecret-flag', A.token))).body), { note: 'asecret payload' })
  for (const [flag, token, label] of [['bsecret-flag', B.token, 'B'], [B.flag, B.token, 'B'], ['asecret-flag', B.token, 'B'], ['asecret-flag', A2.token, 'environment 2'], [A.flag, A2.token, 'environment 2']] as const) {
    expectAnswer(t, await owner.get(remote(A.env, flag, token)), 404, `remote config of ${flag} under ${label}'s token`, label === 'B' ? secretsOf(B) : secretsOf(A2))
  }

  walked.add('GET /api/surveys/')
  for (const [tenant, others] of [[A, [B, A2]], [A2, [A, B]], [B, [A, A2]]] as const) {
    const listed = await client(w.app, {}).get(`/api/surveys/?token=${tenant.token}`)
    expectAnswer(t, listed, 200, `public surveys of ${tenant.marker}`, others.flatMap(secretsOf))
    t.same(listed.body.surveys.map((s: { name: string }) => s.name), [`${tenant.marker} survey`])
  }

  const anyone = client(w.app, {})
  for (const [tenant, others] of [[A, [B, A2]], [A2, [A, B]], [B, [A, A2]]] as const) {
    const flags = await anyone.post('/flags/?v=2', { token: tenant.token, distinct_id: 'visitor' })
    expectAnswer(t, flags, 200, `/flags with ${tenant.marker}'s token`, others.flatMap(secretsOf))
    t.same(Object.keys(flags.body.flags).sort(), expected[tenant.marker])
    const decide = await anyone.post('/decide/?v=3', { token: tenant.token, distinct_id: 'visitor' })
    t.same(Object.keys(decide.body.featureFlags).sort(), expected[tenant.marker], `/decide with ${tenant.marker}'s token`)
  }

  const captured = await anyone.post('/capture/', { api_key: A.token, event: 'crossing-event', distinct_id: 'crosser', properties: { token: B.token } })
  t.equal(captured.status, 200)
  await anyone.post('/batch/', { api_key: A.token, batch: [{ event: 'crossing-event', distinct_id: 'crosser', properties: { token: B.token } }] })
  await w.models.waitFor((await w.log.headPosition())!, ['events'])
  const crossing = async (api: Api, env: number) => (await api.get(`/api/environments/${env}/events/?event=crossing-event`)).body.results.length
  t.equal(await crossing(owner, A.env), 2, 'events sent with A\'s token land in A')
  t.equal(await crossing(w.callers.foreign, B.env), 0, 'and never in B, whatever token the properties name')
  t.equal(await crossing(owner, A2.env), 0, 'nor in A\'s other environment')
})

t.test('every /api/ route of the app is walked above or named as holding nothing of a tenant', async (t) => {
  const w = await world(t)
  // HEAD is registered beside every GET and answers as the GET does, without a body.
  const routes = routeTable(w.app).filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`)
  t.ok(routes.length > 100, `the route table lists the app's routes (${routes.length})`)
  t.same(routes.filter((route) => !walked.has(route) && !(route in NOT_TENANT_SCOPED)), [], 'no /api/ route escapes the walk')
  const known = new Set(routeTable(w.app).map((r) => `${r.method} ${r.url}`))
  t.same([...walked, ...Object.keys(NOT_TENANT_SCOPED)].filter((route) => !known.has(route)), [], 'every walked route is one the app serves')
})
