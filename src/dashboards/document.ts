import type { Dashboard } from './state.js'

/** A dashboard's read model: the dashboard, and the key the list sorts its names by. */
export type DashboardDocument = Dashboard & { list_order: string }
