import { DASHBOARD_EVENT_TYPES, type DashboardEvent } from '../src/dashboards/events.js'
import { evolveDashboard, type Dashboard } from '../src/dashboards/state.js'
import { asDomainEvent, documentProjector } from './projector.js'

/** Dashboards with their tiles, collaborators and sharing, exactly as their events leave them. */
export const dashboards = documentProjector<Dashboard>({
  name: 'dashboards',
  version: 1,
  collection: 'dashboards',
  handles: DASHBOARD_EVENT_TYPES,
  indexes: [['environment_id'], ['access_token']],
  idOf: (event) => event.streamId.slice('dashboard-'.length),
  evolve: (doc, event) => evolveDashboard(doc, asDomainEvent<DashboardEvent>(event)),
})
