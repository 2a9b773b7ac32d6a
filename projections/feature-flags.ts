import { FEATURE_FLAG_EVENT_TYPES, type FeatureFlagEvent } from '../src/flags/events.js'
import { evolveFlag, type FeatureFlag } from '../src/flags/state.js'
import { asDomainEvent, documentProjector } from './projector.js'

/** Feature flags with their definitions, exactly as their events leave them; decide reads these. */
export const featureFlags = documentProjector<FeatureFlag>({
  name: 'feature_flags',
  version: 1,
  collection: 'feature_flags',
  handles: FEATURE_FLAG_EVENT_TYPES,
  indexes: [['environment_id']],
  idOf: (event) => event.streamId.slice('flag-'.length),
  evolve: (doc, event) => evolveFlag(doc, asDomainEvent<FeatureFlagEvent>(event)),
})
