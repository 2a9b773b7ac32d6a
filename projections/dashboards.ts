import { DASHBOARD_EVENT_TYPES, type DashboardEvent } from '../src/dashboards/events.js'
import type { DashboardDocument } from '../src/dashboards/document.js'
import { listOrderKey } from '../src/dashboards/list-order.js'
import { evolveDashboard } from '../src/dashboards/state.js'
import { asDomainEvent, documentProjector } from './projector.js'

/**
 * Dashboards with their tiles, collaborators and sharing, exactly as their events leave them.
 * Version 2 adds `list_order`, so that the stores page the list in its own order.
 */
export const dashboards = documentProjector<DashboardDocument>({
  name: 'dashboards',
  version: 2,
  collection: 'dashboards',
  handles: DASHBOARD_EVENT_TYPES,
  indexes: [['environment_id'], ['access_token'], ['environment_id', 'pinned', 'list_order']],
  idOf: (event) => event.streamId.slice('dashboard-'.length),
  evolve: (doc, event) => {
    const next = evolveDashboard(doc, asDomainEvent<DashboardEvent>(event))
    return next && { ...next, list_order: listOrderKey(next.name) }
  },
})
