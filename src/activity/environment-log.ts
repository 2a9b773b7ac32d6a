import type { EventLog } from '../eventlog/port.js'
import type { CollectionOf, ReadModelDocuments } from '../readstore/documents.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { AuditedResource } from '../readstore/audited-resource.js'
import type { Environment } from '../readstore/environment.js'
import { activityEntries, readWholeStream, type ActivityEntry } from './activity-log.js'

export type LoggedEntry = Omit<ActivityEntry, 'user'> & { actor: string }

export interface ActivityFilter {
  readonly scopes: readonly string[] | null
  readonly itemId: string | null
  readonly user: string | null
  /** Inclusive bounds, ms since the epoch. */
  readonly from: number | null
  readonly to: number | null
}

const entriesOf = async (log: EventLog, resource: AuditedResource, id: number): Promise<LoggedEntry[]> =>
  activityEntries(resource.activity, String(id), await readWholeStream(log, resource.stream(id)))

/** Ids of the environment's aggregates of one kind, deleted ones included. */
const idsOf = async (models: ReadModels, collection: CollectionOf<ReadModelDocuments>, environmentId: number): Promise<number[]> =>
  (await models.find(collection, { where: { environment_id: environmentId } })).map((doc) => Number(doc['id']))

const matches = (filter: ActivityFilter, entry: LoggedEntry): boolean => {
  if (filter.scopes && !filter.scopes.includes(entry.scope)) return false
  if (filter.itemId !== null && entry.item_id !== filter.itemId) return false
  if (filter.user !== null && entry.actor !== filter.user) return false
  const at = Date.parse(entry.created_at)
  if (filter.from !== null && at < filter.from) return false
  if (filter.to !== null && at > filter.to) return false
  return true
}

/**
 * Every management change of one environment, newest first: the environment's own stream and
 * the streams of the resources it holds (dashboards, subscriptions, flags, surveys…), each read
 * from the log. The read models only say which aggregates the environment has.
 */
export const environmentActivityLog = async (
  deps: { log: EventLog; models: ReadModels; audited: readonly AuditedResource[] }, environment: Environment, filter: ActivityFilter,
): Promise<LoggedEntry[]> => {
  const wanted = (resource: AuditedResource) => !filter.scopes || filter.scopes.includes(resource.activity.scope)
  const entries: LoggedEntry[] = []
  for (const resource of deps.audited) {
    if (!wanted(resource)) continue
    if (resource.isEnvironment) {
      entries.push(...await entriesOf(deps.log, resource, environment.id))
      continue
    }
    const ids = filter.itemId !== null ? [Number(filter.itemId)].filter(Number.isSafeInteger) : await idsOf(deps.models, resource.collection, environment.id)
    for (const id of ids) {
      if (filter.itemId !== null && (await deps.models.get(resource.collection, String(id)))?.['environment_id'] !== environment.id) continue
      entries.push(...await entriesOf(deps.log, resource, id))
    }
  }
  return entries
    .filter((entry) => matches(filter, entry))
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
}
