import type { FeatureModule } from '../http/feature-module.js'
import type { ExportDeps } from './deps.js'
import { EXPORTED_ASSET_EVENT_TYPES } from './events.js'
import { exportedAssets } from './projection.js'

/** Exported assets (PostHog's exports API): CSV of queries and insights, pictures of insights, and signed public links to them. */
export const exportsModule: FeatureModule<ExportDeps> = {
  name: 'exports',
  eventTypes: [...EXPORTED_ASSET_EVENT_TYPES, 'ExportLinkKeyIssued'],
  projectors: [exportedAssets],
  routes: async () => {
    const [{ exportRoutes }, { exporterRoutes }] = await Promise.all([import('./routes.js'), import('./exporter-routes.js')])
    return { environment: [exportRoutes], api: [exporterRoutes] }
  },
}
