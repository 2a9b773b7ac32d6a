import type { FeatureModule } from '../http/feature-module.js'
import type { DecideDeps } from './routes.js'

/** `/decide` and `/flags` for SDKs, and flag definitions for local evaluation. */
export const decideModule: FeatureModule<DecideDeps> = {
  name: 'decide',
  routes: async () => {
    const [{ localEvaluationRoutes }, { decideRoutes }] = await Promise.all([import('./local-evaluation.js'), import('./routes.js')])
    return { ingest: [decideRoutes], api: [localEvaluationRoutes] }
  },
}
