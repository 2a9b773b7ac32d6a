import t from 'tap'
import { acceptInvite } from '../../src/invites/accept.js'
import { organizationStream } from '../../src/accounts/events.js'
import { world, context } from '../support/world.js'
import { client } from '../support/client.js'
import { addAdmin, addMember } from '../support/members.js'

/** A restricted dashboard made by one member, looked at by people whose levels change over HTTP. */
const setup = async (t: Parameters<typeof world>[0]) => {
  const w = await world(t)
  const creator = await addMember(w, { email: 'creator@example.com' })
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`
  const dashboard = (await client(w.app, creator.headers).post(base, { name: 'restricted', restriction_level: 37 })).body
  const members = `/api/organizations/${w.installation.organization_id}/members/`
  return { ...w, creator, base, dashboard, url: `${base}${dashboard.id}/`, members, owner: client(w.app, w.bearer(w.key.value)) }
}

/**
 * Reference case 44 lets a member share someone else's restricted dashboard only in an
 * organization without dashboard permissioning; Hedgelog always has it, so sharing follows edit rights.
 */
t.test('a member shares someone else\'s restricted dashboard only once they collaborate on it', async (t) => {
  const w = await setup(t)
  const colleague = await addMember(w)
  const member = client(w.app, colleague.headers)
  const refused = await member.patch(`${w.url}sharing/`, { enabled: true })
  t.equal(refused.status, 403)
  t.equal(refused.body.detail, "You don't have edit permissions for this dashboard.")
  t.equal((await client(w.app, w.creator.headers).post(`${w.url}collaborators/`, { user_uuid: colleague.uuid, level: 37 })).status, 201)
  const shared = await member.patch(`${w.url}sharing/`, { enabled: true })
  t.equal(shared.status, 200)
  t.equal(shared.body.enabled, true)
})

t.test('a member promoted to admin over HTTP gains restriction rights on others\' dashboards, and loses them when demoted', async (t) => {
  const w = await setup(t)
  const colleague = await addMember(w)
  const api = client(w.app, colleague.headers)
  const refused = await api.patch(w.url, { restriction_level: 21 })
  t.equal(refused.status, 403)
  t.equal(refused.body.detail, "You don't have edit permissions for this dashboard.")
  t.equal((await w.owner.patch(`${w.members}${colleague.uuid}/`, { level: 8 })).status, 200)
  t.equal((await api.patch(w.url, { name: 'edited by an admin' })).status, 200, 'admins edit restricted dashboards')
  const added = await client(w.app, w.creator.headers).post(`${w.url}collaborators/`, { user_uuid: colleague.uuid, level: 37 })
  t.equal(added.body.detail, 'Cannot add collaborators that already have inherent access (the dashboard owner or a project admins).')
  t.equal((await w.owner.patch(`${w.members}${colleague.uuid}/`, { level: 1 })).status, 200)
  t.equal((await api.patch(w.url, { name: 'after demotion' })).status, 403, 'a demoted admin loses inherent access')
  t.equal((await client(w.app, w.creator.headers).post(`${w.url}collaborators/`, { user_uuid: colleague.uuid, level: 37 })).status, 201)
  t.equal((await api.patch(w.url, { name: 'as collaborator' })).status, 200, 'and edits again as a collaborator')
})

t.test('someone who joined through an invite becomes a collaborator and edits', async (t) => {
  const w = await setup(t)
  const invite = await w.owner.post(`/api/organizations/${w.installation.organization_id}/invites/`, { target_email: 'joiner@example.com' })
  const joined = await acceptInvite(w.log, invite.body.id, 'Joiner', context())
  await w.models.waitFor((await w.log.headPosition())!, ['users', 'personal_api_keys'])
  const api = client(w.app, { authorization: `Bearer ${joined.key.value}` })
  t.equal((await api.patch(w.url, { name: 'x' })).status, 403)
  const added = await client(w.app, w.creator.headers).post(`${w.url}collaborators/`, { user_uuid: joined.user_uuid, level: 37 })
  t.equal(added.status, 201)
  t.match(added.body.user, { email: 'joiner@example.com', first_name: 'Joiner' })
  t.equal((await api.patch(w.url, { name: 'by the joiner' })).status, 200)
  const activity = await w.owner.get(`${w.url}activity/`)
  t.match(activity.body.results[0], { activity: 'updated', user: { email: 'joiner@example.com' } })
})

t.test('a collaborator removed from the organization can no longer act (reference case 7: their key is refused)', async (t) => {
  const w = await setup(t)
  const colleague = await addMember(w)
  t.equal((await client(w.app, w.creator.headers).post(`${w.url}collaborators/`, { user_uuid: colleague.uuid, level: 37 })).status, 201)
  t.equal((await w.owner.delete(`${w.members}${colleague.uuid}/`)).status, 204)
  const third = await addMember(w)
  const attempt = await client(w.app, colleague.headers).post(`${w.url}collaborators/`, { user_uuid: third.uuid, level: 37 })
  t.equal(attempt.status, 401)
})

t.test('membership changes are events on the organization\'s stream naming who acted', async (t) => {
  const w = await setup(t)
  const admin = await addAdmin(w)
  const member = await addMember(w)
  await client(w.app, admin.headers).patch(`${w.members}${member.uuid}/`, { level: 8 })
  await w.owner.delete(`${w.members}${member.uuid}/`)
  await w.owner.patch(`/api/organizations/${w.installation.organization_id}/`, { name: 'Renamed' })
  const recorded = []
  for await (const event of w.log.readStream(organizationStream(w.installation.organization_id))) recorded.push(event)
  t.same(recorded.map((e) => [e.type, e.metadata?.['actor']]), [
    ['OrganizationCreated', 'test'],
    ['OrganizationMemberLevelChanged', admin.uuid],
    ['OrganizationMemberRemoved', w.installation.user_uuid],
    ['OrganizationRenamed', w.installation.user_uuid],
  ])
})
