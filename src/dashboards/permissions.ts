import type { Dashboard } from './state.js'

/** Dashboard restriction levels, reused as privilege levels. */
export const EVERYONE_CAN_EDIT = 21
export const ONLY_COLLABORATORS_CAN_EDIT = 37
export const CAN_VIEW = 21
export const CAN_EDIT = 37

/** Organization membership levels. */
export const MEMBER = 1
export const ADMIN = 8

/** What the permission rules read of a dashboard. */
export type Guarded = Pick<Dashboard, 'restriction_level' | 'created_by' | 'collaborators'>

/** The user acting on a dashboard, with their organization membership level. */
export interface Actor {
  readonly uuid: string
  readonly level: number
}

/** Hedgelog has dashboard permissioning available, so the restriction level set is the one that applies. */
export const effectiveRestrictionLevel = (dashboard: Guarded): number => dashboard.restriction_level

/** Creator and project admins (organization admins and owners) hold restriction rights. */
export const hasRestrictionRights = (dashboard: Guarded, actor: Actor): boolean =>
  actor.uuid === dashboard.created_by || actor.level >= ADMIN

export const effectivePrivilegeLevel = (dashboard: Guarded, actor: Actor): number => {
  if (effectiveRestrictionLevel(dashboard) < ONLY_COLLABORATORS_CAN_EDIT || hasRestrictionRights(dashboard, actor)) return CAN_EDIT
  return dashboard.collaborators.find((c) => c.user_uuid === actor.uuid)?.level ?? CAN_VIEW
}

export const canEdit = (dashboard: Guarded, actor: Actor): boolean =>
  effectiveRestrictionLevel(dashboard) < ONLY_COLLABORATORS_CAN_EDIT || effectivePrivilegeLevel(dashboard, actor) >= CAN_EDIT
