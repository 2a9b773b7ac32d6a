import { changedFields } from '../kernel/canonical-json.js'
import { NotFound, PermissionDenied, ValidationFailed, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import type { Collaborator, DashboardCreated, DashboardEvent, DashboardFields, Tile } from './events.js'
import {
  CAN_EDIT, canEdit, effectiveRestrictionLevel, hasRestrictionRights, EVERYONE_CAN_EDIT, type Actor,
} from './permissions.js'
import { checkDashboardLimits } from './limits.js'
import { evolveDashboard, type Dashboard } from './state.js'

export type TileChange =
  | { readonly kind: 'add'; readonly tile: Tile }
  | { readonly kind: 'update'; readonly tileId: number; readonly changes: Partial<Tile> }

/** The user a collaborator request names, as the route found it (null when there is none). */
export interface CollaboratorTarget {
  readonly uuid: string
  readonly organizationId: string
  readonly level: number
}

/**
 * The insights a deletion with `delete_insights` deletes too (those living only on this
 * dashboard, as the route found them), and the id that names this command on their streams.
 */
export interface InsightsWithDashboard {
  readonly changeId: string
  readonly deleting: readonly number[]
}

export type DashboardCommand =
  | { type: 'CreateDashboard'; data: DashboardCreated['data'] }
  | {
    type: 'UpdateDashboard'; actor: Actor; changes: Partial<DashboardFields>; deleted: boolean | undefined; tiles: TileChange[]; at: string
    insights?: InsightsWithDashboard
  }
  | { type: 'AddCollaborator'; actor: Actor; organizationId: string; target: CollaboratorTarget | null; level: number; collaboratorId: string; at: string }
  | { type: 'RemoveCollaborator'; actor: Actor; userUuid: string; at: string }
  | { type: 'SetSharing'; actor: Actor; enabled: boolean; at: string }
  | { type: 'MoveTileOut'; actor: Actor; tileId: number; toDashboard: number; moveId: string; at: string }
  | { type: 'CompleteTileMove'; tile: Tile; fromDashboard: number; moveId: string; at: string }
  | { type: 'PlaceInsightTile'; insightId: number; tile: Tile; changeId: string; at: string }
  | { type: 'RemoveInsightTile'; insightId: number; changeId: string; at: string }

const NO_EDIT = "You don't have edit permissions for this dashboard."

const existing = (state: Dashboard | null): Dashboard => {
  if (state === null || state.deleted) throw new NotFound()
  return state
}

const editable = (state: Dashboard | null, actor: Actor, message = NO_EDIT): Dashboard => {
  const dashboard = existing(state)
  if (!canEdit(dashboard, actor)) throw new PermissionDenied(message)
  return dashboard
}

const update = (state: Dashboard | null, command: Extract<DashboardCommand, { type: 'UpdateDashboard' }>): DashboardEvent[] => {
  const { actor, at } = command
  // A deleted dashboard is only reachable by a PATCH that restores it.
  if (state === null || (state.deleted && command.deleted !== false)) throw new NotFound()
  if (!canEdit(state, actor)) throw new PermissionDenied(NO_EDIT)
  const events: DashboardEvent[] = []
  const { changeId, deleting } = command.insights ?? { changeId: null, deleting: [] }
  if (state.deleted) {
    const restoring = state.deleted_insights ?? []
    events.push({ type: 'DashboardRestored', data: restoring.length > 0 && changeId !== null ? { at, insights: restoring, changeId } : { at } })
  }
  const changes = changedFields(state, command.changes)
  if (changes.restriction_level !== undefined && !hasRestrictionRights(state, actor)) {
    throw new PermissionDenied("Only the dashboard owner and project admins have the restriction rights required to change the dashboard's restriction level.")
  }
  if (Object.keys(changes).length > 0) events.push({ type: 'DashboardUpdated', data: { changes, at } })
  for (const change of command.tiles) {
    if (change.kind === 'add') {
      events.push({ type: 'DashboardTileAdded', data: { tile: change.tile, at } })
      continue
    }
    const tile = state.tiles.find((t) => t.id === change.tileId)
    if (!tile) throw new ValidationFailed(`Tile ${change.tileId} is not on this dashboard.`, 'tiles')
    const tileChanges = changedFields(tile, change.changes)
    if (Object.keys(tileChanges).length > 0) events.push({ type: 'DashboardTileUpdated', data: { tileId: tile.id, changes: tileChanges, at } })
  }
  if (command.deleted === true && !state.deleted) {
    events.push({ type: 'DashboardDeleted', data: deleting.length > 0 && changeId !== null ? { at, insights: [...deleting], changeId } : { at } })
  }
  return events
}

const addCollaborator = (state: Dashboard | null, command: Extract<DashboardCommand, { type: 'AddCollaborator' }>): DashboardEvent[] => {
  const dashboard = editable(state, command.actor)
  if (effectiveRestrictionLevel(dashboard) <= EVERYONE_CAN_EDIT) {
    throw new ValidationFailed('Cannot add collaborators to a dashboard on the lowest restriction level.')
  }
  if (command.level !== CAN_EDIT) throw new ValidationFailed('Only edit access can be explicitly specified currently.')
  const { target } = command
  if (target === null) throw new ValidationFailed('User does not exist.')
  if (target.organizationId !== command.organizationId) throw new ValidationFailed('Cannot add collaborators that have no access to the project.')
  if (hasRestrictionRights(dashboard, { uuid: target.uuid, level: target.level })) {
    throw new ValidationFailed('Cannot add collaborators that already have inherent access (the dashboard owner or a project admins).')
  }
  if (dashboard.collaborators.some((c) => c.user_uuid === target.uuid)) throw new ValidationFailed('User already is a collaborator.')
  const collaborator: Collaborator = { id: command.collaboratorId, user_uuid: target.uuid, level: command.level, added_at: command.at, updated_at: command.at }
  return [{ type: 'DashboardCollaboratorAdded', data: { collaborator, at: command.at } }]
}

const removeCollaborator = (state: Dashboard | null, command: Extract<DashboardCommand, { type: 'RemoveCollaborator' }>): DashboardEvent[] => {
  const dashboard = editable(state, command.actor)
  if (effectiveRestrictionLevel(dashboard) <= EVERYONE_CAN_EDIT) {
    throw new ValidationFailed('Cannot remove collaborators from a dashboard on the lowest restriction level.')
  }
  if (!dashboard.collaborators.some((c) => c.user_uuid === command.userUuid)) throw new NotFound()
  return [{ type: 'DashboardCollaboratorRemoved', data: { userUuid: command.userUuid, at: command.at } }]
}

/** Tiles a creation carries in its own event, by JSON length; more follow as tile events, so no one event outgrows the log. */
const CREATED_TILES_LENGTH = 256 * 1024

const creation = (data: DashboardCreated['data']): DashboardEvent[] => {
  if (JSON.stringify(data.tiles).length <= CREATED_TILES_LENGTH) return [{ type: 'DashboardCreated', data }]
  return [
    { type: 'DashboardCreated', data: { ...data, tiles: [] } },
    ...data.tiles.map((tile): DashboardEvent => ({ type: 'DashboardTileAdded', data: { tile, at: data.at } })),
  ]
}

const decideCommand = (command: DashboardCommand, state: Dashboard | null): DashboardEvent[] => {
  switch (command.type) {
    case 'CreateDashboard':
      return state === null ? creation(command.data) : []
    case 'UpdateDashboard':
      return update(state, command)
    case 'AddCollaborator':
      return addCollaborator(state, command)
    case 'RemoveCollaborator':
      return removeCollaborator(state, command)
    case 'SetSharing': {
      const dashboard = editable(state, command.actor)
      const unchanged = dashboard.sharing.enabled === command.enabled && dashboard.sharing.created_at !== null
      return unchanged ? [] : [{ type: 'DashboardSharingChanged', data: { enabled: command.enabled, at: command.at } }]
    }
    case 'MoveTileOut': {
      const dashboard = editable(state, command.actor)
      const tile = dashboard.tiles.find((t) => t.id === command.tileId && !t.deleted)
      if (!tile) throw new NotFound()
      const { tileId, toDashboard, moveId, at } = command
      return [{ type: 'DashboardTileMovedOut', data: { tileId, toDashboard, tile, moveId, at } }]
    }
    case 'CompleteTileMove': {
      // The source decided the move; the destination only refuses to take it twice.
      if (state === null || state.arrivals?.includes(command.moveId)) return []
      const { tile, fromDashboard, moveId, at } = command
      return [{ type: 'DashboardTileMovedIn', data: { tile, fromDashboard, moveId, at } }]
    }
    // An insight decided these; the dashboard records each once, whatever it holds now, so the
    // insight's command is seen to be complete.
    case 'PlaceInsightTile': {
      if (state === null) return []
      const { insightId, tile, changeId, at } = command
      return [{ type: 'DashboardInsightTilePlaced', data: { insightId, tile, changeId, at } }]
    }
    case 'RemoveInsightTile': {
      if (state === null) return []
      const { insightId, changeId, at } = command
      return [{ type: 'DashboardInsightTileRemoved', data: { insightId, changeId, at } }]
    }
    default:
      return assertNever(command)
  }
}

/** Commands that complete what another stream decided; that stream held them to its own rules. */
const COMPLETIONS: ReadonlySet<DashboardCommand['type']> = new Set(['CompleteTileMove', 'PlaceInsightTile', 'RemoveInsightTile'])

/** Every dashboard command is held to the dashboard limits (`limits.ts`) on the state it would leave. */
export const dashboardDecider: Decider<Dashboard | null, DashboardCommand, DashboardEvent> = {
  initialState: () => null,
  evolve: evolveDashboard,
  decide: (command, state) => {
    const events = decideCommand(command, state)
    // A move or an insight's tile is held to the limits where it is decided (the route checks the room).
    if (!COMPLETIONS.has(command.type)) checkDashboardLimits(state, events.reduce(evolveDashboard, state))
    return events
  },
}
