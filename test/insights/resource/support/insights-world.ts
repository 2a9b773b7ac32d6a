import type { Test } from 'tap'
import type { AppDeps } from '../../../../src/app.js'
import { client } from '../../../support/client.js'
import { world } from '../../../support/world.js'

/** A world with a client holding every scope, and the environment's insights (`base`) and dashboards paths. */
export const insightsWorld = async (t: Test, app: Partial<AppDeps> = {}) => {
  const w = await world(t, { app })
  const api = client(w.app, w.bearer(w.key.value))
  const environment = w.installation.environment_id
  return { ...w, api, base: `/api/environments/${environment}/insights/`, dashboards: `/api/environments/${environment}/dashboards/` }
}
