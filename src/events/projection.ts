import { elementsChainOf } from './elements.js'
import type { NormalisedEvent } from '../persons/normalise.js'
import { eventKey, type EventRecord } from './record.js'
import { capturedEvents, ownedNormalised } from '../ingestion/captured-projection.js'
import type { Projector } from '../readstore/projector.js'

export const EVENTS = 'events'

/** An analytics event as the events read model stores it: elements as the chain, not among the properties. */
export const eventRecord = (environmentId: number, event: NormalisedEvent): EventRecord => {
  let properties = event.properties
  const chain = elementsChainOf(properties)
  if (Object.hasOwn(properties, '$elements') || Object.hasOwn(properties, '$elements_chain')) {
    properties = { ...properties }
    delete properties['$elements']
    delete properties['$elements_chain']
  }
  return {
    environment_id: environmentId, uuid: event.uuid, event: event.event, distinct_id: event.distinctId,
    timestamp: event.timestamp, properties, elements_chain: chain,
  }
}

/**
 * Every stored analytics event, keyed by environment and UUID: an event captured twice counts
 * once, and the later copy wins, as PostHog's deduplicating table keeps the last insert. Queries
 * read an environment's events in (timestamp, uuid) order a page at a time, each page after the
 * last event of the one before: the first index serves that order and where each page starts.
 * Built in partitions by that key: both copies of an event fall in one.
 */
export const events: Projector = {
  name: 'events',
  ownFile: true,
  threadWeight: 6,
  version: 2,
  collections: [EVENTS],
  writeOnly: [EVENTS],
  ...capturedEvents,
  indexes: {
    [EVENTS]: [['environment_id', 'timestamp', 'uuid'], ['environment_id', 'event', 'timestamp'], ['environment_id', 'distinct_id', 'timestamp']],
  },
  partitioned: true,
  apply(view, event) {
    // The key as normalisation will make it: the UUID in lower case.
    const { environmentId, events } = ownedNormalised(event, view, (environment, captured) => eventKey(environment, String(captured.uuid).toLowerCase()))
    for (const normalised of events) {
      const id = eventKey(environmentId, normalised.uuid)
      if (view.owns(id)) view.put(EVENTS, id, eventRecord(environmentId, normalised))
    }
  },
}
