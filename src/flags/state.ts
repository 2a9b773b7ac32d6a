import { assertNever } from '../kernel/errors.js'
import type { FeatureFlagEvent, FlagFields } from './events.js'

/** A feature flag as its events leave it; the read model stores exactly this document. */
export interface FeatureFlag extends FlagFields {
  id: number
  environment_id: number
  deleted: boolean
  /** Counts every change, so a client can tell definitions apart. */
  version: number
  created_by: string
  created_at: string
  last_modified_by: string
  updated_at: string
}

export const evolveFlag = (state: FeatureFlag | null, event: FeatureFlagEvent): FeatureFlag | null => {
  if (event.type === 'FeatureFlagCreated') {
    const { flagId, environmentId, createdBy, at, ...fields } = event.data
    return {
      ...fields, id: flagId, environment_id: environmentId, deleted: false, version: 1,
      created_by: createdBy, created_at: at, last_modified_by: createdBy, updated_at: at,
    }
  }
  if (state === null) return null
  const touched = { version: state.version + 1, last_modified_by: event.data.modifiedBy, updated_at: event.data.at }
  switch (event.type) {
    case 'FeatureFlagUpdated': return { ...state, ...event.data.changes, ...touched }
    case 'FeatureFlagDeleted': return { ...state, deleted: true, ...touched }
    case 'FeatureFlagRestored': return { ...state, deleted: false, ...touched }
    default: return assertNever(event)
  }
}

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    feature_flags: FeatureFlag
  }
}
