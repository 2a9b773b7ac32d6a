import type { JsonObject } from '../../../src/eventlog/port.js'
import type { QueryEnvironment, QueryEvent, QueryInput } from '../../../src/insights/engine/data.js'

let counter = 0

/** An event at an ISO time (UTC when no offset), for person `person` with one distinct id. */
export const ev = (event: string, at: string, person: string, properties: JsonObject = {}, extra: Partial<QueryEvent> = {}): QueryEvent => ({
  uuid: `e${++counter}`,
  event,
  timestamp: Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(at) ? at : `${at}Z`),
  distinctId: person,
  personId: person,
  personCreatedAt: Date.parse('2020-01-01T00:00:00Z'),
  properties,
  personProperties: {},
  ...extra,
})

export const environment = (overrides: Partial<QueryEnvironment> = {}): QueryEnvironment => ({
  timezone: 'UTC', weekStartDay: 0, testAccountFilters: [], groupTypes: [], ...overrides,
})

export const at = (now: string, overrides: Partial<QueryEnvironment> = {}): QueryInput => ({ environment: environment(overrides), now: Date.parse(now) })
