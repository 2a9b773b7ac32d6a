import type { ActivitySource } from '../kernel/activity-source.js'
import type { FeatureFlagEvent } from './events.js'
import { evolveFlag, type FeatureFlag } from './state.js'

const ACTIVITY: Record<FeatureFlagEvent['type'], string> = {
  FeatureFlagCreated: 'created',
  FeatureFlagUpdated: 'updated',
  FeatureFlagDeleted: 'deleted',
  FeatureFlagRestored: 'restored',
}

export const flagActivity: ActivitySource<FeatureFlag | null, FeatureFlagEvent> = {
  scope: 'FeatureFlag',
  initialState: null,
  evolve: evolveFlag,
  activityOf: (event) => ACTIVITY[event.type],
  nameOf: (state) => state?.key ?? null,
  ignoredFields: ['updated_at', 'version', 'last_modified_by'],
}
