import { FEATURE_FLAG_EVENT_TYPES, type FeatureFlagEvent } from './events.js'
import type { FlagSetVersion } from './flag-set-version.js'
import { evolveFlag, type FeatureFlag } from './state.js'
import { asDomainEvent, type Projector } from '../readstore/projector.js'

/** Feature flags with their definitions, exactly as their events leave them, and a version per environment. */
export const featureFlags: Projector = {
  name: 'feature_flags',
  version: 1,
  collections: ['feature_flags', 'flag_set_versions'],
  handles: FEATURE_FLAG_EVENT_TYPES,
  indexes: { feature_flags: [['environment_id']] },
  apply(view, event) {
    const id = event.streamId.slice('flag-'.length)
    const before = view.get<FeatureFlag>('feature_flags', id)
    const after = evolveFlag(before, asDomainEvent<FeatureFlagEvent>(event))
    if (after === null || after === before) return
    view.put('feature_flags', id, after)
    const key = String(after.environment_id)
    const current = view.get<FlagSetVersion>('flag_set_versions', key)
    view.put('flag_set_versions', key, { id: key, environment_id: after.environment_id, version: (current?.version ?? 0) + 1 })
  },
}
