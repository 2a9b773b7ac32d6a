import type { Test } from 'tap'
import { issueApiKey } from '../../src/accounts/commands.js'
import { client } from './client.js'
import { context, world } from './world.js'

/** A world with a scoped client, a legacy unscoped one (move_tile needs it), and its bases. */
export const integrityWorld = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const legacy = await issueApiKey(w.log, { userUuid: w.installation.user_uuid, scopes: null, label: 'legacy' }, context())
  const legacyApi = client(w.app, w.bearer(legacy.value))
  const environment = w.installation.environment_id
  return {
    ...w, api, legacyApi, legacyKey: legacy.value,
    dashboards: `/api/environments/${environment}/dashboards/`,
    flags: `/api/environments/${environment}/feature_flags/`,
    keyed: (key: string, legacyKey = false) => client(w.app, { ...w.bearer(legacyKey ? legacy.value : w.key.value), 'idempotency-key': key }),
  }
}
