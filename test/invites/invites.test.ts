import t from 'tap'
import { acceptInvite } from '../../src/invites/accept.js'
import { world, context } from '../support/world.js'
import { client } from '../support/client.js'
import { addAdmin, addMember } from '../support/members.js'
import { expiredInvite } from '../support/invites.js'

const setup = async (t: Parameters<typeof world>[0]) => {
  const w = await world(t)
  const url = `/api/organizations/${w.installation.organization_id}/invites/`
  return { ...w, url, owner: client(w.app, w.bearer(w.key.value)) }
}

t.test('an invite is created in PostHog\'s shape and listed', async (t) => {
  const w = await setup(t)
  const created = await w.owner.post(w.url, { target_email: 'New.Person@Example.com', first_name: 'New', level: 8, message: 'welcome' })
  t.equal(created.status, 201)
  t.match(created.body, {
    id: String, target_email: 'new.person@example.com', first_name: 'New', level: 8, is_expired: false, emailing_attempt_made: false,
    created_by: { uuid: w.installation.user_uuid, email: 'admin@hedgelog.local' }, created_at: /Z$/, updated_at: /Z$/, message: 'welcome',
  })
  const list = await w.owner.get(w.url)
  t.equal(list.body.count, 1)
  t.equal(list.body.results[0].id, created.body.id)
  t.equal((await w.owner.post(w.url, { target_email: 'other@example.com' })).body.level, 1, 'level defaults to member')
})

t.test('PostHog\'s refusals: bad address, a higher level than the inviter\'s, someone already a member', async (t) => {
  const w = await setup(t)
  const bad = await w.owner.post(w.url, { target_email: 'not an email' })
  t.same(bad.body, { type: 'validation_error', code: 'invalid_input', detail: 'Enter a valid email address.', attr: 'target_email' })
  const missing = await w.owner.post(w.url, {})
  t.match(missing.body, { type: 'validation_error', attr: 'target_email', detail: 'This field is required.' })
  const level = await w.owner.post(w.url, { target_email: 'a@example.com', level: 3 })
  t.match(level.body, { type: 'validation_error', code: 'invalid_choice', attr: 'level' })
  const admin = await addAdmin(w)
  const higher = await client(w.app, admin.headers).post(w.url, { target_email: 'boss@example.com', level: 15 })
  t.equal(higher.status, 403)
  t.equal(higher.body.detail, 'You cannot invite a user with a higher permission level than your own.')
  const member = await addMember(w, { email: 'here@example.com' })
  const already = await client(w.app, member.headers).post(w.url, { target_email: 'HERE@example.com' })
  t.same(already.body, { type: 'validation_error', code: 'invalid_input', detail: 'A user with this email address already belongs to the organization.', attr: 'target_email' })
  t.equal((await w.owner.get(w.url)).body.count, 0, 'nothing was recorded')
})

t.test('a deleted invite is gone from the list and cannot be accepted', async (t) => {
  const w = await setup(t)
  const created = await w.owner.post(w.url, { target_email: 'gone@example.com' })
  t.equal((await w.owner.delete(`${w.url}${created.body.id}/`)).status, 204)
  t.equal((await w.owner.get(w.url)).body.count, 0)
  t.equal((await w.owner.delete(`${w.url}${created.body.id}/`)).status, 404)
  await t.rejects(acceptInvite(w.log, created.body.id, 'Gone', context()), { detail: undefined, message: 'The provided invite ID is not valid.' })
})

t.test('an expired invite is listed as expired and refused', async (t) => {
  const w = await setup(t)
  const expired = await expiredInvite(w.log, { organizationId: w.installation.organization_id, createdBy: w.installation.user_uuid, email: 'old@example.com' })
  await w.models.waitFor(expired.position, ['invites'])
  const created = await w.owner.post(w.url, { target_email: 'late@example.com' })
  const list = await w.owner.get(w.url)
  t.same(list.body.results.map((i: { id: string; is_expired: boolean }) => [i.id, i.is_expired]), [[created.body.id, false], [expired.inviteId, true]])
  await t.rejects(acceptInvite(w.log, expired.inviteId, 'Old', context()), { message: 'This invite has expired. Please ask your admin for a new one.', code: 'expired' })
  const later = { ...context(), now: new Date(Date.now() + 3 * 86_400_000 + 1000).toISOString() }
  await t.rejects(acceptInvite(w.log, created.body.id, 'Late', later), { message: 'This invite has expired. Please ask your admin for a new one.', code: 'expired' })
  const accepted = await acceptInvite(w.log, created.body.id, 'Late', context())
  t.equal(accepted.level, 1, 'within three days it is accepted')
})

t.test('an accepted invite joins the user at its level with a working key, once', async (t) => {
  const w = await setup(t)
  const created = await w.owner.post(w.url, { target_email: 'joiner@example.com', level: 8 })
  const accepted = await acceptInvite(w.log, created.body.id, 'Joiner', context())
  await w.models.waitFor((await w.log.headPosition())!, ['users', 'personal_api_keys', 'invites'])
  const me = await client(w.app, { authorization: `Bearer ${accepted.key.value}` }).get('/api/users/@me/')
  t.equal(me.status, 200)
  t.match(me.body, { uuid: accepted.user_uuid, email: 'joiner@example.com', first_name: 'Joiner', organization: { id: w.installation.organization_id } })
  const members = await w.owner.get(`/api/organizations/${w.installation.organization_id}/members/`)
  t.equal(members.body.results.find((m: { id: string }) => m.id === accepted.user_uuid).level, 8)
  t.equal((await w.owner.get(w.url)).body.count, 0, 'a used invite is no longer listed')
  await t.rejects(acceptInvite(w.log, created.body.id, 'Again', context()), { message: 'The provided invite ID is not valid.' })
  const again = await w.owner.post(w.url, { target_email: 'joiner@example.com' })
  t.equal(again.status, 400, 'the joiner is now a member')
})

t.test('invite routes refuse a foreign or malformed organization id', async (t) => {
  const w = await setup(t)
  t.equal((await w.owner.get('/api/organizations/00000000-0000-4000-8000-000000000000/invites/')).status, 404)
  t.equal((await w.owner.post('/api/organizations/%20/invites/', { target_email: 'a@example.com' })).status, 404)
  t.equal((await w.owner.delete(`${w.url}01ARZ3NDEKTSV4RRFFQ69G5FAV/`)).status, 404)
})
