import type { JsonObject } from '../../../src/eventlog/port.js'
import type { QueryEvent } from '../../../src/insights/engine/data.js'
import { ev } from './events.js'

/** The events of PostHog's documented examples, shared by each insight's tests and the tests of its actors. */

/** A `$pageview` at noon on each of the days. */
export const active = (person: string, days: string[], properties: JsonObject = {}): QueryEvent[] =>
  days.map((day) => ev('$pageview', `${day}T12:00:00`, person, properties))

export const TV1_EVENTS: QueryEvent[] = [
  ev('$pageview', '2024-01-01T10:00:00', 'u1'), ev('$pageview', '2024-01-01T12:00:00', 'u1'),
  ev('$pageview', '2024-01-01T23:30:00', 'u2'), ev('$pageview', '2024-01-03T00:15:00', 'u2'),
  ev('$pageview', '2024-01-07T23:59:59', 'u3'), ev('$pageview', '2024-01-08T00:00:01', 'u3'),
]

/** Steps signup → purchase in January, window 14 days. */
export const TV4_EVENTS: QueryEvent[] = [
  ev('signup', '2024-01-01T10:00:00', 'p1'), ev('$pageview', '2024-01-02T10:00:00', 'p1'), ev('purchase', '2024-01-03T10:00:00', 'p1'),
  ev('signup', '2024-01-01T09:00:00', 'p2'), ev('purchase', '2024-01-20T09:00:00', 'p2'),
  ev('purchase', '2024-01-02T00:00:00', 'p3'), ev('signup', '2024-01-05T00:00:00', 'p3'),
  ev('signup', '2024-01-04T00:00:00', 'p4'), ev('purchase', '2024-01-04T01:00:00', 'p4'),
  ev('signup', '2024-01-10T00:00:00', 'p5'), ev('purchase', '2024-01-10T00:10:00', 'p5'),
]

export const TV5_EVENTS: QueryEvent[] = [
  ...active('u1', ['2024-01-01', '2024-01-02', '2024-01-03']), ...active('u2', ['2024-01-01', '2024-01-03']),
  ...active('u3', ['2024-01-02']), ...active('u4', ['2024-01-03']),
]

const created = (day: string) => ({ personCreatedAt: Date.parse(`${day}T00:00:00Z`) })

export const TV6_EVENTS: QueryEvent[] = [
  ...['2024-01-02', '2024-01-03', '2024-01-05'].map((day) => ev('$pageview', `${day}T12:00:00`, 'p1', {}, created('2024-01-02'))),
  ...['2024-01-01', '2024-01-02'].map((day) => ev('$pageview', `${day}T12:00:00`, 'p2', {}, created('2023-12-20'))),
  ev('other', '2024-01-01T09:00:00', 'p3', {}, created('2024-01-01')),
  ev('$pageview', '2024-01-04T12:00:00', 'p3', {}, created('2024-01-01')),
]

export const TV7_EVENTS: QueryEvent[] = [
  ...active('u1', ['2024-01-01', '2024-01-02', '2024-01-03']), ...active('u2', ['2024-01-01']), ...active('u3', ['2024-01-02', '2024-01-05']),
  ev('$pageview', '2024-01-04T10:00:00', 'u4'), ev('$pageview', '2024-01-04T11:00:00', 'u4'), ev('$pageview', '2024-01-04T12:00:00', 'u4'),
]
