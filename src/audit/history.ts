import { activityEntries, type Change } from '../activity/activity-log.js'
import { positionToString, type EventLog, type JsonObject, type RecordedEvent } from '../eventlog/port.js'
import { capturedIn } from '../migration/export.js'
import { EVENTS_CAPTURED } from '../ingestion/captured-event.js'
import { IMPORT_COMMITTED } from '../ingestion/import-events.js'
import { streamUntil } from '../eventlog/as-of.js'
import { within, type Cutoff } from '../eventlog/cutoff.js'
import { auditedKind, resourceOfStream } from './resources.js'
import type { AuditedResource } from '../readstore/audited-resource.js'
import { CliRefused } from '../kernel/cli-refused.js'

/** What `hedgelog audit` names: a resource, any stream, or a person by distinct id. */
export type AuditSubject =
  | { readonly kind: 'resource'; readonly resource: AuditedResource; readonly id: number }
  | { readonly kind: 'stream'; readonly stream: string }
  | { readonly kind: 'person'; readonly distinctId: string }

export class UnknownSubject extends CliRefused {}

/** `dashboard 12`, `flag 7`, `person alice`, or a stream name such as `dashboard-12` or `user-3`. */
export const auditSubject = (resources: readonly AuditedResource[], words: readonly string[]): AuditSubject => {
  const kinds = [...resources.map((resource) => resource.kind), 'person']
  const [first, second, ...rest] = words
  if (first === undefined || rest.length > 0) throw new UnknownSubject(`audit takes a stream name or one of ${kinds.join(', ')} followed by an id`)
  if (second === undefined) {
    const owned = resourceOfStream(resources, first)
    return owned ? { kind: 'resource', ...owned } : { kind: 'stream', stream: first }
  }
  if (first === 'person') return { kind: 'person', distinctId: second }
  const resource = auditedKind(resources, first)
  if (!resource) throw new UnknownSubject(`unknown kind ${JSON.stringify(first)}: one of ${kinds.join(', ')}, or a stream name`)
  if (!/^\d+$/.test(second)) throw new UnknownSubject(`a ${first} id is a whole number, not ${JSON.stringify(second)}`)
  return { kind: 'resource', resource, id: Number(second) }
}

/** One line of an audit trail: a log event with where it stands in the log. */
export interface HistoryLine {
  readonly position: string
  readonly stream: string
  readonly revision: string
  readonly recorded: string
  readonly type: string
  readonly actor: string | null
  /** For management resources: the verb and each field's before and after. */
  readonly activity?: string
  readonly changes?: readonly Change[]
  /** For other streams and persons: the event's data. */
  readonly data?: JsonObject
}

const lineOf = (event: RecordedEvent): HistoryLine => ({
  position: positionToString(event.position), stream: event.streamId, revision: event.revision.toString(),
  recorded: event.created.toISOString(), type: event.type,
  actor: typeof event.metadata?.['actor'] === 'string' ? event.metadata['actor'] : null,
})

/** A stream's trail, oldest first; a resource's entries carry its field-level changes per command. */
export const streamHistory = async (log: EventLog, subject: AuditSubject & { kind: 'resource' | 'stream' }, cutoff: Cutoff | null): Promise<HistoryLine[]> => {
  const stream = subject.kind === 'resource' ? subject.resource.stream(subject.id) : subject.stream
  const events = await streamUntil(log, stream, cutoff)
  if (subject.kind === 'stream') return events.map((event) => ({ ...lineOf(event), data: event.data }))
  const byId = new Map(events.map((event) => [event.id, event]))
  return activityEntries(subject.resource.activity, String(subject.id), events).map((entry) => ({
    ...lineOf(byId.get(entry.id)!), activity: entry.activity, changes: entry.detail.changes,
  }))
}

const PERSON_FIELDS = ['$set', '$set_once', '$unset'] as const

/** Whether a captured event touches the person behind `distinctId`: its own, or the other side of a merge. */
const touches = (captured: JsonObject, distinctId: string): boolean => {
  if (String(captured['distinct_id']) === distinctId) return true
  const properties = (captured['properties'] ?? {}) as JsonObject
  if (captured['event'] === '$identify') return properties['$anon_distinct_id'] === distinctId
  if (captured['event'] === '$create_alias' || captured['event'] === '$merge_dangerously') return properties['alias'] === distinctId
  return false
}

/**
 * Every captured event of the environment that touches one distinct id, in log order: what
 * built the person. Reads the whole log, so it takes as long as an export.
 */
export const personHistory = async (log: EventLog, environmentId: number, distinctId: string, cutoff: Cutoff | null): Promise<HistoryLine[]> => {
  const lines: HistoryLine[] = []
  for await (const record of log.readAll()) {
    if (cutoff && !within(cutoff, record)) break
    if (record.type !== EVENTS_CAPTURED && record.type !== IMPORT_COMMITTED) continue
    for await (const captured of capturedIn(log, environmentId, record)) {
      if (!touches(captured, distinctId)) continue
      const properties = (captured.properties ?? {}) as JsonObject
      const data: JsonObject = { event: captured.event, distinct_id: captured.distinct_id, uuid: captured.uuid, timestamp: captured.timestamp }
      for (const field of PERSON_FIELDS) {
        const value = captured[field.slice(1)] ?? properties[field]
        if (value !== undefined) data[field] = value
      }
      lines.push({ ...lineOf(record), type: String(captured.event), data })
    }
  }
  return lines
}
