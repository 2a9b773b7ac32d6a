import t, { type Test } from 'tap'
import { world } from '../support/world.js'
import { client } from '../support/client.js'
import { addAdmin, addMember, addStranger } from '../support/members.js'

/** A member-owned dashboard, so the installation owner (an org owner) is not its creator. */
const setup = async (t: Test, restriction: 21 | 37 = 37) => {
  const w = await world(t)
  const owner = await addMember(w)
  const ownerApi = client(w.app, owner.headers)
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`
  const created = await ownerApi.post(base, { name: 'restricted', restriction_level: restriction })
  const url = `${base}${created.body.id}/collaborators/`
  return { ...w, owner, ownerApi, base, dashboard: created.body, url }
}

t.test('the creator adds a collaborator to a restricted dashboard', async (t) => {
  const w = await setup(t)
  const colleague = await addMember(w, { email: 'colleague@example.com' })
  const members = await client(w.app, w.bearer(w.key.value)).get(`/api/organizations/${w.installation.organization_id}/members/`)
  t.match(members.body.results.find((m: { id: string }) => m.id === colleague.uuid), { level: 1, joined_at: /Z$/, user: { email: 'colleague@example.com' } }, 'a member of the organization')
  const own = await client(w.app, colleague.headers).get('/api/personal_api_keys/@current/')
  t.equal(own.body.label, 'hedgelog invites accept', 'who joined by accepting an invite, with the key that gave them')
  const added = await w.ownerApi.post(w.url, { user_uuid: colleague.uuid, level: 37 })
  t.equal(added.status, 201)
  t.match(added.body, { id: String, dashboard_id: w.dashboard.id, level: 37, user: { email: 'colleague@example.com', uuid: colleague.uuid }, user_uuid: colleague.uuid })
  const list = await w.ownerApi.get(w.url)
  t.equal(list.status, 200)
  t.same(list.body.map((c: { user: { email: string } }) => c.user.email), ['colleague@example.com'], 'a plain array')
  const asColleague = await client(w.app, colleague.headers).patch(`${w.base}${w.dashboard.id}/`, { name: 'edited by collaborator' })
  t.equal(asColleague.status, 200, 'the collaborator can now edit')
})

t.test('anyone in the project may list collaborators, even without edit rights', async (t) => {
  const w = await setup(t)
  const colleague = await addMember(w)
  await w.ownerApi.post(w.url, { user_uuid: colleague.uuid, level: 37 })
  const bystander = await addMember(w)
  const list = await client(w.app, bystander.headers).get(w.url)
  t.equal(list.status, 200)
  t.equal(list.body.length, 1)
})

t.test('PostHog\'s refusals, each as a 400 in its shape', async (t) => {
  const w = await setup(t)
  const refusal = async (body: unknown, detail: string) => {
    const response = await w.ownerApi.post(w.url, body)
    t.equal(response.status, 400, detail)
    t.same(response.body, { type: 'validation_error', code: 'invalid_input', detail, attr: null })
  }
  const colleague = await addMember(w)
  await refusal({ user_uuid: colleague.uuid, level: 21 }, 'Only edit access can be explicitly specified currently.')
  await refusal({ user_uuid: '6a9f6bd8-1b0b-4b6c-9b7c-2d5f0f6d6e10', level: 37 }, 'User does not exist.')
  const stranger = await addStranger(w)
  await refusal({ user_uuid: stranger.uuid, level: 37 }, 'Cannot add collaborators that have no access to the project.')
  await refusal({ user_uuid: w.owner.uuid, level: 37 }, 'Cannot add collaborators that already have inherent access (the dashboard owner or a project admins).')
  const admin = await addAdmin(w)
  await refusal({ user_uuid: admin.uuid, level: 37 }, 'Cannot add collaborators that already have inherent access (the dashboard owner or a project admins).')
  t.equal((await w.ownerApi.post(w.url, { user_uuid: colleague.uuid, level: 37 })).status, 201)
  await refusal({ user_uuid: colleague.uuid, level: 37 }, 'User already is a collaborator.')
  const invalid = await w.ownerApi.post(w.url, { user_uuid: 'not-a-uuid', level: 37 })
  t.match(invalid.body, { type: 'validation_error', attr: 'user_uuid' })
  const missing = await w.ownerApi.post(w.url, { level: 37 })
  t.match(missing.body, { code: 'required', attr: 'user_uuid' })
  const badLevel = await w.ownerApi.post(w.url, { user_uuid: colleague.uuid, level: 5 })
  t.match(badLevel.body, { code: 'invalid_choice', attr: 'level' })
})

t.test('no collaborators on the lowest restriction level', async (t) => {
  const w = await setup(t, 21)
  const colleague = await addMember(w)
  const added = await w.ownerApi.post(w.url, { user_uuid: colleague.uuid, level: 37 })
  t.same(added.body, { type: 'validation_error', code: 'invalid_input', detail: 'Cannot add collaborators to a dashboard on the lowest restriction level.', attr: null })
  const removed = await w.ownerApi.delete(`${w.url}${colleague.uuid}/`)
  t.equal(removed.status, 400)
  t.equal(removed.body.detail, 'Cannot remove collaborators from a dashboard on the lowest restriction level.')
})

t.test('a member without edit rights can neither add nor remove', async (t) => {
  const w = await setup(t)
  const colleague = await addMember(w)
  await w.ownerApi.post(w.url, { user_uuid: colleague.uuid, level: 37 })
  const bystander = client(w.app, (await addMember(w)).headers)
  const add = await bystander.post(w.url, { user_uuid: colleague.uuid, level: 37 })
  t.same(add.body, { type: 'authentication_error', code: 'permission_denied', detail: "You don't have edit permissions for this dashboard.", attr: null })
  const invalidButForbidden = await bystander.post(w.url, { user_uuid: 'garbage' })
  t.equal(invalidButForbidden.status, 403, 'edit rights are checked before the fields')
  t.equal((await bystander.delete(`${w.url}${colleague.uuid}/`)).status, 403)
})

t.test('the creator removes a collaborator by user uuid', async (t) => {
  const w = await setup(t)
  const colleague = await addMember(w)
  await w.ownerApi.post(w.url, { user_uuid: colleague.uuid, level: 37 })
  const removed = await w.ownerApi.delete(`${w.url}${colleague.uuid}/`)
  t.equal(removed.status, 204)
  t.equal(removed.raw, '')
  t.same((await w.ownerApi.get(w.url)).body, [])
  t.equal((await w.ownerApi.delete(`${w.url}${colleague.uuid}/`)).status, 404)
  t.equal((await client(w.app, colleague.headers).patch(`${w.base}${w.dashboard.id}/`, { name: 'x' })).status, 403, 'edit rights are gone')
})

t.test('PATCH and PUT on a collaborator are not allowed', async (t) => {
  const w = await setup(t)
  const colleague = await addMember(w)
  const patch = await w.ownerApi.patch(`${w.url}${colleague.uuid}/`, { level: 37 })
  t.same(patch.body, { type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "PATCH" not allowed.', attr: null })
  t.equal(patch.status, 405)
  t.equal((await w.ownerApi.put(`${w.url}${colleague.uuid}/`, { level: 37 })).status, 405)
})

t.test('an unknown dashboard, and a caller from another organization', async (t) => {
  const w = await setup(t)
  const missing = await w.ownerApi.get(`${w.base}9999/collaborators/`)
  t.same(missing.body, { type: 'invalid_request', code: 'not_found', detail: 'Dashboard not found.', attr: null })
  const stranger = await addStranger(w)
  const foreign = await client(w.app, stranger.headers).post(w.url, { user_uuid: stranger.uuid, level: 37 })
  t.equal(foreign.status, 403)
  t.equal(foreign.body.detail, "You don't have access to the project.")
})

t.test('restriction levels: who may change them and who may edit', async (t) => {
  const w = await world(t)
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`
  const creator = await addMember(w)
  const creatorApi = client(w.app, creator.headers)
  const { body } = await creatorApi.post(base, { name: 'mine' })
  const url = `${base}${body.id}/`
  const other = client(w.app, (await addMember(w)).headers)
  const denied = await other.patch(url, { restriction_level: 37 })
  t.equal(denied.status, 403)
  t.equal(denied.body.detail, "Only the dashboard owner and project admins have the restriction rights required to change the dashboard's restriction level.")
  const raised = await creatorApi.patch(url, { restriction_level: 37 })
  t.equal(raised.status, 200)
  t.match(raised.body, { restriction_level: 37, effective_restriction_level: 37, effective_privilege_level: 37 })
  const viewed = await other.get(url)
  t.match(viewed.body, { effective_privilege_level: 21, user_access_level: 'viewer' })
  const blocked = await other.patch(url, { name: 'not yours' })
  t.equal(blocked.status, 403)
  t.equal(blocked.body.detail, "You don't have edit permissions for this dashboard.")
  t.equal((await creatorApi.patch(url, { name: 'still mine' })).body.name, 'still mine')
  const admin = client(w.app, (await addAdmin(w)).headers)
  t.equal((await admin.patch(url, { restriction_level: 21 })).status, 200, 'a project admin may change it back')
  t.equal((await other.patch(url, { name: 'open again' })).status, 200)
})
