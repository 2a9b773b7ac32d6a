import type { ActivitySource } from '../kernel/activity-source.js'
import type { DashboardEvent } from './events.js'
import { evolveDashboard, type Dashboard } from './state.js'

const ACTIVITY: Record<DashboardEvent['type'], string> = {
  DashboardCreated: 'created',
  DashboardUpdated: 'updated',
  DashboardDeleted: 'deleted',
  DashboardRestored: 'restored',
  DashboardTileAdded: 'updated',
  DashboardTileUpdated: 'updated',
  DashboardTileMovedOut: 'updated',
  DashboardTileMovedIn: 'updated',
  DashboardInsightTilePlaced: 'updated',
  DashboardInsightTileRemoved: 'updated',
  DashboardCollaboratorAdded: 'collaborator added',
  DashboardCollaboratorRemoved: 'collaborator removed',
  DashboardSharingChanged: 'sharing changed',
}

export const dashboardActivity: ActivitySource<Dashboard | null, DashboardEvent> = {
  scope: 'Dashboard',
  initialState: null,
  evolve: evolveDashboard,
  activityOf: (event) => (event.type === 'DashboardSharingChanged'
    ? `sharing ${event.data.enabled ? 'enabled' : 'disabled'}`
    : ACTIVITY[event.type]),
  nameOf: (state) => state?.name ?? null,
  ignoredFields: ['updated_at', 'deleted_insights'],
}
