import { apiTime } from '../http/timestamps.js'
import { readAggregateEvents } from '../kernel/change-parts.js'
import type { FastifyRequest } from 'fastify'
import { StreamNotFound } from '../eventlog/errors.js'
import type { EventLog, JsonObject, RecordedEvent } from '../eventlog/port.js'
import { basicUser } from '../accounts/users.js'
import { canonicalJson } from '../kernel/canonical-json.js'
import type { ActivitySource } from '../kernel/activity-source.js'
import { pageOf, paginated, type Paginated } from '../http/pagination.js'
import type { ReadModels } from '../readstore/read-models.js'

export interface Change {
  type: string
  action: 'created' | 'changed' | 'deleted'
  field: string | null
  before: unknown
  after: unknown
}

/** One change to one aggregate, as an auditor reads it: who, what, when, and each field's before and after. */
export interface ActivityEntry {
  id: string
  user: JsonObject | null
  activity: string
  scope: string
  item_id: string
  detail: { id: string; name: string | null; changes: Change[]; merge: null; trigger: null; short_id: string | null; type: null }
  created_at: string
  is_system: boolean
  unread: boolean
}

const fieldChanges = (scope: string, before: JsonObject | null, after: JsonObject | null, ignored: readonly string[]): Change[] => {
  if (before === null && after !== null) return [{ type: scope, action: 'created', field: null, before: null, after: null }]
  if (before === null || after === null) return []
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((f) => !ignored.includes(f)).sort()
  return fields
    .filter((field) => canonicalJson(before[field] ?? null) !== canonicalJson(after[field] ?? null))
    .map((field) => ({ type: scope, action: 'changed', field, before: before[field] ?? null, after: after[field] ?? null }))
}

/** Events appended by one command share a correlation id; the log shows them as one entry. */
const byCommand = (recorded: readonly RecordedEvent[]): RecordedEvent[][] => {
  const groups: RecordedEvent[][] = []
  for (const event of recorded) {
    const last = groups.at(-1)
    const correlation = event.metadata?.['correlationId']
    if (last && correlation !== undefined && last[0]!.metadata?.['correlationId'] === correlation) last.push(event)
    else groups.push([event])
  }
  return groups
}

/**
 * Folds an aggregate's own events into its activity log, oldest first: one entry per command,
 * its actor and time from the metadata, its changes as each field's before and after.
 */
export const activityEntries = <State extends JsonObject | null, Event>(
  source: ActivitySource<State, Event>, itemId: string, recorded: readonly RecordedEvent[],
): Array<Omit<ActivityEntry, 'user'> & { actor: string }> => {
  let state = source.initialState
  const fieldsOf = (shown: State): JsonObject | null => (source.fieldsOf ? source.fieldsOf(shown) : shown)
  return byCommand(recorded).map((events) => {
    const before = state
    const verbs = events.map((event) => {
      const domain = { type: event.type, data: event.data } as Event
      state = source.evolve(state, domain)
      return source.activityOf(domain)
    })
    const first = events[0]!
    return {
      id: first.id,
      actor: String(first.metadata?.['actor'] ?? ''),
      activity: verbs.find((verb) => verb !== 'updated') ?? 'updated',
      scope: source.scope,
      item_id: itemId,
      detail: {
        id: itemId, name: source.nameOf(state), changes: fieldChanges(source.scope, fieldsOf(before), fieldsOf(state), source.ignoredFields),
        merge: null, trigger: null, short_id: source.shortIdOf?.(state) ?? null, type: null,
      },
      created_at: apiTime(String(first.metadata?.['occurredAt'] ?? '')),
      is_system: false,
      unread: false,
    }
  })
}

export const readWholeStream = async (log: EventLog, stream: string): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = []
  try {
    for await (const event of readAggregateEvents(log, stream)) events.push(event)
  } catch (error) {
    if (!(error instanceof StreamNotFound)) throw error
  }
  return events
}

/** The paginated activity of one aggregate, newest first, read from its stream. */
export const activityPage = async <State extends JsonObject | null, Event>(
  request: FastifyRequest, deps: { log: EventLog; models: ReadModels }, source: ActivitySource<State, Event>,
  stream: string, itemId: string,
): Promise<Paginated<ActivityEntry>> => {
  const entries = activityEntries(source, itemId, await readWholeStream(deps.log, stream)).reverse()
  const page = pageOf(request.query)
  const slice = entries.slice(page.offset, page.offset + page.limit)
  return paginated(request, page, entries.length, await withUsers(deps.models, slice))
}

/** Entries as the API shows them: the actor's id replaced by the user, looked up once each. */
export const withUsers = async (models: ReadModels, entries: ReadonlyArray<Omit<ActivityEntry, 'user'> & { actor: string }>): Promise<ActivityEntry[]> => {
  const users = new Map<string, JsonObject | null>()
  for (const { actor } of entries) if (!users.has(actor)) users.set(actor, await models.get('users', actor))
  return entries.map(({ actor, ...entry }) => {
    const user = users.get(actor)
    return { ...entry, user: user ? basicUser(user) : null }
  })
}
