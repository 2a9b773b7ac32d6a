import t from 'tap'
import { organizationDecider, type OrganizationCommand } from '../../src/organizations/decider.js'
import type { OrganizationEvent } from '../../src/accounts/events.js'
import { NotFound, PermissionDenied, ValidationFailed } from '../../src/kernel/errors.js'
import { spec } from '../support/given.js'

const at = '2026-01-01T00:00:00Z'
const organizationId = 'o1'
const created: OrganizationEvent = { type: 'OrganizationCreated', data: { organizationId, name: 'Acme', at } }
const joined = { owner: 15, admin: 8, member: 1, other: 1 }
const given = spec(organizationDecider)
const change = (actorUuid: string, userUuid: string, level: number): OrganizationCommand =>
  ({ type: 'ChangeMemberLevel', data: { organizationId, actorUuid, userUuid, level, joined, at } })
const remove = (actorUuid: string, userUuid: string): OrganizationCommand =>
  ({ type: 'RemoveMember', data: { organizationId, actorUuid, userUuid, joined, at } })
const changed = (userUuid: string, level: number): OrganizationEvent => ({ type: 'OrganizationMemberLevelChanged', data: { organizationId, userUuid, level, at } })
const removed = (userUuid: string): OrganizationEvent => ({ type: 'OrganizationMemberRemoved', data: { organizationId, userUuid, at } })

t.test('an owner promotes a member to owner, and an admin makes a member an admin', async (t) => {
  given(created).when(change('owner', 'member', 15)).then(t, [changed('member', 15)])
  given(created).when(change('admin', 'member', 8)).then(t, [changed('member', 8)])
})
t.test('setting the level a member already has records nothing', async (t) => {
  given(created).when(change('owner', 'member', 1)).then(t, [])
})
t.test('nobody changes their own level, so the last owner cannot demote themselves', async (t) => {
  given(created).when(change('owner', 'owner', 8)).thenThrows(t, PermissionDenied)
})
t.test('only owners make owners; admins cannot raise anyone above themselves or touch an owner', async (t) => {
  given(created).when(change('admin', 'member', 15)).thenThrows(t, PermissionDenied)
  given(created).when(change('admin', 'owner', 1)).thenThrows(t, PermissionDenied)
})
t.test('members edit nobody', async (t) => {
  given(created).when(change('member', 'other', 1)).thenThrows(t, PermissionDenied)
  given(created).when(remove('member', 'other')).thenThrows(t, PermissionDenied)
})
t.test('a member may leave; an admin removes a member; the last owner cannot be removed', async (t) => {
  given(created).when(remove('member', 'member')).then(t, [removed('member')])
  given(created).when(remove('admin', 'member')).then(t, [removed('member')])
  given(created).when(remove('owner', 'owner')).thenThrows(t, ValidationFailed)
})
t.test('with a second owner, an owner may leave', async (t) => {
  given(created, changed('admin', 15)).when(remove('owner', 'owner')).then(t, [removed('owner')])
})
t.test('a removed member is gone: changing or removing them again is a 404, and they can act no more', async (t) => {
  given(created, removed('member')).when(change('owner', 'member', 8)).thenThrows(t, NotFound)
  given(created, removed('member')).when(remove('owner', 'member')).thenThrows(t, NotFound)
  given(created, removed('admin')).when(remove('admin', 'member')).thenThrows(t, PermissionDenied)
})
t.test('a level recorded on the stream wins over the join level', async (t) => {
  given(created, changed('member', 8)).when(remove('admin', 'member')).then(t, [removed('member')])
  given(created, changed('admin', 1)).when(remove('admin', 'member')).thenThrows(t, PermissionDenied)
})
t.test('renaming records the new name once', async (t) => {
  const rename: OrganizationCommand = { type: 'RenameOrganization', data: { organizationId, name: 'Beta', at } }
  given(created).when(rename).then(t, [{ type: 'OrganizationRenamed', data: rename.data }])
  given(created, { type: 'OrganizationRenamed', data: rename.data }).when(rename).then(t, [])
  given().when(rename).thenThrows(t, NotFound)
})
