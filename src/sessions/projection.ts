import { foldSession, observedValues, sessionIdOf, sessionKey, type SessionRecord } from './sessions.js'
import { capturedEvents, capturedOf, ownedNormalised } from '../ingestion/captured-projection.js'
import type { DocumentRef, Projector } from '../readstore/projector.js'

export const SESSIONS = 'sessions'
/** `<environmentId>:<source>:<value>` → one value seen on an event of a session, for the values helper. */
export const SESSION_VALUES = 'session_values'

export const sessionValueKey = (environmentId: number, source: string, value: string): string =>
  `${environmentId}:${source}:${value}`

/**
 * Sessions from `$session_id`: their span, entry and end properties, counts, and observed values.
 * Built in partitions by session: the values seen are written by every partition that sees them,
 * each time the same document.
 */
export const sessions: Projector = {
  name: 'sessions',
  ownFile: true,
  threadWeight: 8,
  version: 1,
  collections: [SESSIONS, SESSION_VALUES],
  ...capturedEvents,
  indexes: {
    [SESSIONS]: [['environment_id', 'start_timestamp']],
    [SESSION_VALUES]: [['environment_id', 'source']],
  },
  partitioned: true,
  *prefetch(event, _peek, owns) {
    const { environmentId, events } = capturedOf(event)
    const refs: DocumentRef[] = []
    for (const captured of events) {
      const sessionId = sessionIdOf(captured.properties)
      if (sessionId === null) continue
      const id = sessionKey(environmentId, sessionId)
      if (!owns(id)) continue
      refs.push([SESSIONS, id])
      for (const [source, value] of observedValues(captured.properties)) refs.push([SESSION_VALUES, sessionValueKey(environmentId, source, value)])
    }
    yield* refs
  },
  apply(view, event) {
    // Normalisation leaves `$session_id` as it was sent.
    const { environmentId, events } = ownedNormalised(event, view, (environment, captured) => {
      const sessionId = sessionIdOf(captured.properties)
      return sessionId === null ? null : sessionKey(environment, sessionId)
    })
    for (const normalised of events) {
      const sessionId = sessionIdOf(normalised.properties)
      if (sessionId === null) continue
      const id = sessionKey(environmentId, sessionId)
      if (!view.owns(id)) continue
      view.put(SESSIONS, id, foldSession(view.get<SessionRecord>(SESSIONS, id), environmentId, sessionId, normalised))
      for (const [source, value] of observedValues(normalised.properties)) {
        const valueId = sessionValueKey(environmentId, source, value)
        if (!view.get(SESSION_VALUES, valueId)) view.put(SESSION_VALUES, valueId, { environment_id: environmentId, source, value })
      }
    }
  },
}
