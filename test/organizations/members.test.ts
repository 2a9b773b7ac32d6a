import t from 'tap'
import { world } from '../support/world.js'
import { client } from '../support/client.js'
import { addAdmin, addMember } from '../support/members.js'

const setup = async (t: Parameters<typeof world>[0]) => {
  const w = await world(t)
  const admin = await addAdmin(w)
  const member = await addMember(w, { email: 'member@example.com' })
  const url = `/api/organizations/${w.installation.organization_id}/members/`
  const owner = client(w.app, w.bearer(w.key.value))
  return { ...w, admin, member, url, owner, asAdmin: client(w.app, admin.headers), asMember: client(w.app, member.headers) }
}

t.test('members are listed in PostHog\'s shape, keyed by user uuid', async (t) => {
  const w = await setup(t)
  const list = await w.asMember.get(w.url)
  t.equal(list.status, 200)
  t.equal(list.body.count, 3)
  const entry = list.body.results.find((m: { user: { email: string } }) => m.user.email === 'member@example.com')
  t.match(entry, { id: w.member.uuid, level: 1, user: { uuid: w.member.uuid, email: 'member@example.com', first_name: 'member' }, joined_at: /Z$/, updated_at: /Z$/ })
})

t.test('an admin makes a member an admin, and the new level counts at once', async (t) => {
  const w = await setup(t)
  const before = await w.asMember.post(`/api/projects/${w.installation.project_id}/environments/`, { name: 'Staging' })
  t.equal(before.status, 403)
  const changed = await w.asAdmin.patch(`${w.url}${w.member.uuid}/`, { level: 8 })
  t.equal(changed.status, 200)
  t.equal(changed.body.level, 8)
  const after = await w.asMember.post(`/api/projects/${w.installation.project_id}/environments/`, { name: 'Staging' })
  t.equal(after.status, 201, 'the promoted member may now create environments')
})

t.test('PostHog\'s refusals for levels, each with its message', async (t) => {
  const w = await setup(t)
  const refused = async (api: typeof w.owner, uuid: string, body: unknown, status: number, detail: string) => {
    const response = await api.patch(`${w.url}${uuid}/`, body)
    t.equal(response.status, status, detail)
    t.equal(response.body.detail, detail)
  }
  await refused(w.owner, w.installation.user_uuid, { level: 8 }, 403, "You can't change your own access level.")
  await refused(w.asAdmin, w.member.uuid, { level: 15 }, 403, "You can only make another member owner if you're this organization's owner.")
  await refused(w.asAdmin, w.installation.user_uuid, { level: 1 }, 403, 'You can only edit others with level lower or equal to you.')
  await refused(w.asMember, w.admin.uuid, { level: 1 }, 403, 'You can only edit others if you are an admin.')
  const invalid = await w.owner.patch(`${w.url}${w.member.uuid}/`, { level: 5 })
  t.same(invalid.body, { type: 'validation_error', code: 'invalid_choice', detail: '"5" is not a valid choice.', attr: 'level' })
  t.equal((await w.owner.patch(`${w.url}0b9c1f53-0000-4000-8000-000000000000/`, { level: 8 })).status, 404)
  t.equal((await w.owner.patch(`${w.url}not-a-uuid/`, { level: 8 })).status, 404)
  const list = await w.owner.get(w.url)
  t.same(list.body.results.map((m: { level: number }) => m.level).sort(), [1, 15, 8].sort(), 'nothing changed')
})

t.test('the last owner can be neither removed nor demoted; with a second owner they may leave', async (t) => {
  const w = await setup(t)
  const last = await w.owner.delete(`${w.url}${w.installation.user_uuid}/`)
  t.equal(last.status, 400)
  t.same(last.body, { type: 'validation_error', code: 'invalid_input', detail: 'You cannot remove the last owner of the organization.', attr: null })
  t.equal((await w.owner.patch(`${w.url}${w.admin.uuid}/`, { level: 15 })).status, 200)
  t.equal((await w.owner.delete(`${w.url}${w.installation.user_uuid}/`)).status, 204, 'an owner leaves when another remains')
  t.equal((await w.owner.get(w.url)).status, 401, 'and their key stops working')
})

t.test('a removed member\'s keys get 401 at once, and their name stays on what they made', async (t) => {
  const w = await setup(t)
  const env = `/api/environments/${w.installation.environment_id}`
  const made = await w.asMember.post(`${env}/dashboards/`, { name: 'by member' })
  t.equal((await w.asAdmin.delete(`${w.url}${w.member.uuid}/`)).status, 204)
  const refused = await w.asMember.get(`${env}/dashboards/`)
  t.equal(refused.status, 401)
  t.equal(refused.body.code, 'authentication_failed')
  const dashboard = await w.owner.get(`${env}/dashboards/${made.body.id}/`)
  t.equal(dashboard.body.created_by.email, 'member@example.com')
  t.equal((await w.owner.get(w.url)).body.count, 2)
  t.equal((await w.owner.delete(`${w.url}${w.member.uuid}/`)).status, 404, 'removing again')
  const collaborator = await w.owner.post(`${env}/dashboards/${made.body.id}/collaborators/`, { user_uuid: w.member.uuid, level: 37 })
  t.equal(collaborator.status, 400, 'a removed member cannot be made a collaborator')
})

t.test('members may not remove others, but may leave', async (t) => {
  const w = await setup(t)
  const refused = await w.asMember.delete(`${w.url}${w.admin.uuid}/`)
  t.equal(refused.status, 403)
  t.equal(refused.body.detail, 'You can only edit others if you are an admin.')
  t.equal((await w.asMember.delete(`${w.url}${w.member.uuid}/`)).status, 204)
  t.equal((await w.asMember.get('/api/users/@me/')).status, 401)
})

t.test('a key without organization_member:write cannot change members', async (t) => {
  const w = await setup(t)
  const reader = await w.issueKey(['organization_member:read'])
  const api = client(w.app, w.bearer(reader.value))
  t.equal((await api.get(w.url)).status, 200)
  const refused = await api.patch(`${w.url}${w.member.uuid}/`, { level: 8 })
  t.equal(refused.status, 403)
  t.equal(refused.body.detail, "API key missing required scope 'organization_member:write'")
})

t.test('organization names: admins rename, blank names are refused, members are refused first', async (t) => {
  const w = await setup(t)
  const org = `/api/organizations/${w.installation.organization_id}/`
  const renamed = await w.asAdmin.patch(org, { name: 'Acme Inc' })
  t.equal(renamed.status, 200)
  t.match(renamed.body, { id: w.installation.organization_id, name: 'Acme Inc', slug: 'acme-inc', membership_level: 8, member_count: 3 })
  const blank = await w.owner.patch(org, { name: '' })
  t.same(blank.body, { type: 'validation_error', code: 'blank', detail: 'This field may not be blank.', attr: 'name' })
  const member = await w.asMember.patch(org, { name: '' })
  t.equal(member.status, 403)
  t.equal(member.body.detail, 'Your organization access level is insufficient.')
  t.equal((await w.owner.get('/api/organizations/@current/')).body.name, 'Acme Inc')
  t.equal((await w.owner.get('/api/organizations/not-an-id/')).status, 404)
})
