import { DASHBOARD_EVENT_TYPES, type DashboardEvent } from './events.js'
import { dashboardDocument, type DashboardDocument } from './document.js'
import { evolveDashboard } from './state.js'
import { CHANGE_COMMITTED, changeEvents } from '../kernel/change-parts.js'
import { asDomainEvent, documentProjector } from '../readstore/projector.js'

const STREAM = 'dashboard-'

/**
 * Dashboards with their tiles, collaborators and sharing, exactly as their events leave them.
 * Version 2 adds `list_order`, so that the stores page the list in its own order; dashboards
 * with insight tiles also carry `insight_tiles` and `insight_ids` (see `dashboardDocument`).
 */
export const dashboards = documentProjector<DashboardDocument>({
  name: 'dashboards',
  version: 2,
  collection: 'dashboards',
  handles: [...DASHBOARD_EVENT_TYPES, CHANGE_COMMITTED],
  indexes: [['environment_id'], ['access_token'], ['environment_id', 'pinned', 'list_order']],
  // A change too large for one append is read from its parts, in place of its commit.
  expand: (event, log) => (event.type === CHANGE_COMMITTED && event.streamId.startsWith(STREAM) ? changeEvents(log, event) : null),
  // Events in part streams count only through their commit.
  idOf: (event) => (event.streamId.startsWith(STREAM) && event.type !== CHANGE_COMMITTED ? event.streamId.slice(STREAM.length) : null),
  evolve: (doc, event) => {
    const next = evolveDashboard(doc, asDomainEvent<DashboardEvent>(event))
    return next && dashboardDocument(next)
  },
})
