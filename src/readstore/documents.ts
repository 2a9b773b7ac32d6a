import type { JsonObject } from '../eventlog/port.js'
import type { DashboardDocument } from '../dashboards/document.js'
import type { EventRecord } from '../events/record.js'
import type { FlagSetVersion } from '../flags/flag-set-version.js'
import type { FeatureFlag } from '../flags/state.js'
import type { Environment } from '../http/environment-scope.js'
import type { GroupRecord, GroupTypeMapping } from '../groups/groups.js'
import type { DistinctIdPage, DistinctIdRecord, PersonRecord } from '../persons/records.js'
import type { SessionRecord, SessionValue } from '../sessions/sessions.js'
import type { DeliveryRecord } from '../subscriptions/delivery-record.js'
import type { Subscription } from '../subscriptions/state.js'
import type { Survey } from '../surveys/state.js'

/**
 * Every read model queries read, by logical collection name, with the type of its documents.
 * JsonObject where the projector writes a plain object with no type of its own.
 */
export interface ReadModelDocuments {
  organizations: JsonObject
  users: JsonObject
  projects: JsonObject
  environments: Environment
  personal_api_keys: JsonObject
  invites: JsonObject
  dashboards: DashboardDocument
  subscriptions: Subscription
  subscription_deliveries: DeliveryRecord
  feature_flags: FeatureFlag
  flag_set_versions: FlagSetVersion
  surveys: Survey
  persons: PersonRecord
  person_distinct_ids: DistinctIdRecord
  person_distinct_id_pages: DistinctIdPage
  /** `<environmentId>` → the environment's last integer person id. */
  person_counters: JsonObject
  groups: GroupRecord
  group_type_mappings: GroupTypeMapping
  sessions: SessionRecord
  session_values: SessionValue
  events: EventRecord
  /** Commands across two streams whose second step is not written yet, by `<kind>-<id>`. */
  unfinished_commands: JsonObject
}

/** A map from collection name to document type, as `ReadModels` reads one. */
export type DocumentTypes<M> = { readonly [C in keyof M]: JsonObject }

/** A collection of `M`, by its name. */
export type CollectionOf<M> = keyof M & string
