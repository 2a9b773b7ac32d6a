import type { FeatureModule } from '../http/feature-module.js'
import { EVENTS_CAPTURED } from './captured-event.js'
import { IMPORT_CHUNK_APPENDED, IMPORT_COMMITTED, IMPORT_COMPLETED, IMPORT_STARTED } from './import-events.js'
import type { IngestDeps } from './routes.js'

/** Capture and batch ingestion, and the session recording endpoint. */
export const ingestionModule: FeatureModule<IngestDeps> = {
  name: 'ingestion',
  eventTypes: [EVENTS_CAPTURED, IMPORT_STARTED, IMPORT_CHUNK_APPENDED, IMPORT_COMPLETED, IMPORT_COMMITTED],
  routes: async () => {
    const [{ recordingRoutes }, { ingestRoutes }] = await Promise.all([import('./recordings.js'), import('./routes.js')])
    return { ingest: [ingestRoutes, recordingRoutes] }
  },
}
