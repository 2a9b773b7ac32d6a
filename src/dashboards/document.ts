import type { Dashboard } from './state.js'

/** A dashboard's read model: the dashboard, and the key the list sorts its names by. */
export type DashboardDocument = Dashboard & { list_order: string }

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    dashboards: DashboardDocument
  }
}
