import { apiTime } from '../http/timestamps.js'
import type { BasicUser } from '../accounts/users.js'
import type { FeatureFlag } from './state.js'

type Group = { properties?: unknown[] | null }

const isSimple = (flag: FeatureFlag): boolean => {
  const groups = (flag.filters['groups'] ?? []) as Group[]
  return groups.length === 1 && (groups[0]!.properties ?? []).length === 0 && !flag.filters['multivariate'] &&
    (flag.filters['aggregation_group_type_index'] ?? null) === null
}

/** PostHog's feature flag shape; fields of features Hedgelog does not have carry their empty values. */
export const flagJson = (flag: FeatureFlag, users: ReadonlyMap<string, BasicUser>) => ({
  id: flag.id,
  name: flag.name,
  key: flag.key,
  filters: flag.filters,
  deleted: flag.deleted,
  active: flag.active,
  created_by: users.get(flag.created_by) ?? null,
  created_at: apiTime(flag.created_at),
  updated_at: apiTime(flag.updated_at),
  version: flag.version,
  last_modified_by: users.get(flag.last_modified_by) ?? null,
  is_simple_flag: isSimple(flag),
  rollout_percentage: null,
  ensure_experience_continuity: flag.ensure_experience_continuity,
  experiment_set: [],
  surveys: [],
  features: [],
  rollback_conditions: null,
  performed_rollback: null,
  can_edit: true,
  tags: flag.tags,
  usage_dashboard: null,
  analytics_dashboards: [],
  has_enriched_analytics: false,
  user_access_level: 'editor',
  creation_context: 'feature_flags',
  is_remote_configuration: flag.is_remote_configuration ?? false,
  has_encrypted_payloads: false,
  status: flag.deleted ? 'DELETED' : 'ACTIVE',
  team_id: flag.environment_id,
})
