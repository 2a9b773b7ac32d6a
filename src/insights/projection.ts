import { CHANGE_COMMITTED, changeEvents } from '../kernel/change-parts.js'
import { asDomainEvent, documentProjector } from '../readstore/projector.js'
import { insightKind, type InsightDocument } from './document.js'
import { INSIGHT_EVENT_TYPES, INSIGHT_STREAM_PREFIX, type InsightEvent } from './events.js'
import { evolveInsight } from './state.js'

/** Insights exactly as their events leave them, with the kind the list filters by. */
export const insights = documentProjector<InsightDocument>({
  name: 'insights',
  version: 1,
  collection: 'insights',
  handles: [...INSIGHT_EVENT_TYPES, CHANGE_COMMITTED],
  indexes: [['environment_id', 'deleted'], ['environment_id', 'short_id'], ['access_token']],
  // A create whose query is too large for one append is read from its parts, in place of its commit.
  expand: (event, log) => (event.type === CHANGE_COMMITTED && event.streamId.startsWith(INSIGHT_STREAM_PREFIX) ? changeEvents(log, event) : null),
  idOf: (event) => (event.streamId.startsWith(INSIGHT_STREAM_PREFIX) && event.type !== CHANGE_COMMITTED
    ? event.streamId.slice(INSIGHT_STREAM_PREFIX.length)
    : null),
  evolve: (doc, event) => {
    const next = evolveInsight(doc, asDomainEvent<InsightEvent>(event))
    if (next === doc) return doc
    return next && { ...next, kind: insightKind(next.query, next.filters) }
  },
})
