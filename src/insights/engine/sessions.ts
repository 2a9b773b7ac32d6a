import type { JsonObject } from '../../eventlog/port.js'
import { foldSession, type SessionRecord } from '../../sessions/sessions.js'
import { sessionProperties } from '../../sessions/session-properties.js'
import { sessionIdOf } from '../properties/row-context.js'
import type { QueryEvent } from './data.js'

/** PostHog ends a session after 24 hours at the most, so a session's events lie within a day of any of them. */
export const SESSION_REACH_MS = 24 * 3_600_000

/**
 * Session properties built from the session's events, as PostHog's sessions table derives them
 * (`$session_duration`, `$entry_current_url`, `$channel_type`, `$is_bounce`…), using the same
 * fold as Hedgelog's sessions read model.
 */
export class SessionTable {
  private readonly records = new Map<string, SessionRecord>()

  add(event: QueryEvent): void {
    const sessionId = sessionIdOf(event)
    if (sessionId === null) return
    const normalised = {
      uuid: event.uuid, event: event.event, distinctId: event.distinctId,
      timestamp: new Date(event.timestamp).toISOString(), properties: event.properties, processPerson: true,
    }
    this.records.set(sessionId, foldSession(this.records.get(sessionId) ?? null, 0, sessionId, normalised))
  }

  properties(): Map<string, JsonObject> {
    const out = new Map<string, JsonObject>()
    for (const [id, record] of this.records) out.set(id, sessionProperties(record))
    return out
  }
}
