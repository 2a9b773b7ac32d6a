import { NotFound, PermissionDenied, ValidationFailed, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import type { OrganizationCreated, OrganizationEvent } from '../accounts/events.js'
import { ADMIN_LEVEL, OWNER_LEVEL } from './levels.js'

/**
 * An organization and what its stream knows of its members: level changes and removals. The
 * level each member joined at lives in their `UserCreated` event, so commands bring those in
 * `joined` (user uuid → join level); a stale list only lacks newer members, never a change.
 */
export type Organization =
  | { status: 'missing' }
  | { status: 'active'; name: string; levels: Readonly<Record<string, number>>; removed: readonly string[] }

export type OrganizationCommand =
  | { type: 'CreateOrganization'; data: OrganizationCreated['data'] }
  | { type: 'RenameOrganization'; data: { organizationId: string; name: string; at: string } }
  | { type: 'ChangeMemberLevel'; data: { organizationId: string; actorUuid: string; userUuid: string; level: number; joined: Record<string, number>; at: string } }
  | { type: 'RemoveMember'; data: { organizationId: string; actorUuid: string; userUuid: string; joined: Record<string, number>; at: string } }

/** Current levels of the members: join levels, then the stream's changes, without those removed. */
export const memberLevels = (state: Organization, joined: Record<string, number>): Map<string, number> => {
  if (state.status !== 'active') return new Map()
  const levels = new Map(Object.entries({ ...joined, ...state.levels }))
  for (const uuid of state.removed) levels.delete(uuid)
  return levels
}

const membersOf = (state: Organization, data: { actorUuid: string; userUuid: string; joined: Record<string, number> }) => {
  const levels = memberLevels(state, data.joined)
  const target = levels.get(data.userUuid)
  if (target === undefined) throw new NotFound()
  const actor = levels.get(data.actorUuid)
  if (actor === undefined) throw new PermissionDenied('You both need to belong to the same organization.')
  const owners = [...levels.values()].filter((level) => level === OWNER_LEVEL).length
  return { actor, target, owners, self: data.actorUuid === data.userUuid }
}

/** PostHog's rules for editing someone else: admins only, and never someone above you. */
const checkEditOthers = (actor: number, target: number): void => {
  if (actor < ADMIN_LEVEL) throw new PermissionDenied('You can only edit others if you are an admin.')
  if (target > actor) throw new PermissionDenied('You can only edit others with level lower or equal to you.')
}

const changeLevel = (state: Organization, data: Extract<OrganizationCommand, { type: 'ChangeMemberLevel' }>['data']): OrganizationEvent[] => {
  const { actor, target, self } = membersOf(state, data)
  if (self) throw new PermissionDenied("You can't change your own access level.")
  if (data.level === OWNER_LEVEL && actor !== OWNER_LEVEL) {
    throw new PermissionDenied("You can only make another member owner if you're this organization's owner.")
  }
  if (data.level !== OWNER_LEVEL && data.level > actor) {
    throw new PermissionDenied('You can only change access level of others to lower or equal to your current one.')
  }
  checkEditOthers(actor, target)
  if (target === data.level) return []
  return [{ type: 'OrganizationMemberLevelChanged', data: { organizationId: data.organizationId, userUuid: data.userUuid, level: data.level, at: data.at } }]
}

const removeMember = (state: Organization, data: Extract<OrganizationCommand, { type: 'RemoveMember' }>['data']): OrganizationEvent[] => {
  const { actor, target, owners, self } = membersOf(state, data)
  if (!self) checkEditOthers(actor, target)
  if (target === OWNER_LEVEL && owners <= 1) {
    throw new ValidationFailed('You cannot remove the last owner of the organization.')
  }
  return [{ type: 'OrganizationMemberRemoved', data: { organizationId: data.organizationId, userUuid: data.userUuid, at: data.at } }]
}

export const organizationDecider: Decider<Organization, OrganizationCommand, OrganizationEvent> = {
  initialState: () => ({ status: 'missing' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'OrganizationCreated': return { status: 'active', name: event.data.name, levels: {}, removed: [] }
      case 'OrganizationRenamed': return state.status === 'active' ? { ...state, name: event.data.name } : state
      case 'OrganizationMemberLevelChanged':
        return state.status === 'active' ? { ...state, levels: { ...state.levels, [event.data.userUuid]: event.data.level } } : state
      case 'OrganizationMemberRemoved':
        return state.status === 'active' ? { ...state, removed: [...state.removed, event.data.userUuid] } : state
      default: return assertNever(event)
    }
  },
  decide: (command, state) => {
    if (command.type === 'CreateOrganization') return state.status === 'missing' ? [{ type: 'OrganizationCreated', data: command.data }] : []
    if (state.status !== 'active') throw new NotFound()
    switch (command.type) {
      case 'RenameOrganization':
        return state.name === command.data.name ? [] : [{ type: 'OrganizationRenamed', data: command.data }]
      case 'ChangeMemberLevel': return changeLevel(state, command.data)
      case 'RemoveMember': return removeMember(state, command.data)
      default: return assertNever(command)
    }
  },
}
