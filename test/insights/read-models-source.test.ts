import t from 'tap'
import fc from 'fast-check'
import type { CapturedEvent } from '../../src/ingestion/captured-event.js'
import type { QueryEvent } from '../../src/insights/engine/data.js'
import { ReadModelsSource, type PersonPropertiesMode } from '../../src/insights/read/read-models-source.js'
import { normaliseEvent } from '../../src/persons/normalise.js'
import { personUuid } from '../../src/persons/person-uuid.js'
import { processPersonEvent } from '../../src/persons/process-person.js'
import { capture, event } from '../projections/support/captured.js'
import { memoryTables } from '../persons/support/tables.js'
import { CAPTURED_COLLECTIONS } from '../projections/support/captured.js'
import { world } from '../support/world.js'

const IDS = ['anon-1', 'anon-2', 'alice', 'bob', 'carol']
const START = Date.parse('2024-03-01T00:00:00.000Z')
const DAY = 86_400_000

/** One step of a random history: what a client sends, at a time that need not follow the order sent. */
const step = fc.record({
  kind: fc.constantFrom('pageview', 'pageview', 'set', 'identify', 'alias', 'personless'),
  id: fc.constantFrom(...IDS),
  other: fc.constantFrom(...IDS),
  plan: fc.constantFrom('free', 'pro', 'team'),
  offset: fc.integer({ min: 0, max: 10 * DAY }),
})

type Step = { kind: string; id: string; other: string; plan: string; offset: number }

const capturedOf = (one: Step): CapturedEvent => {
  const timestamp = new Date(START + one.offset).toISOString()
  switch (one.kind) {
    case 'set': return event('$set', one.id, { timestamp, set: { plan: one.plan } })
    case 'identify': return event('$identify', one.id, { timestamp, properties: { $anon_distinct_id: one.other }, set: { email: `${one.id}@x.test` } })
    case 'alias': return event('$create_alias', one.id, { timestamp, properties: { alias: one.other } })
    case 'personless': return event('$pageview', one.id, { timestamp, properties: { $process_person_profile: false } })
    default: return event('$pageview', one.id, { timestamp, set: one.offset % 3 === 0 ? { plan: one.plan } : null })
  }
}

/**
 * The rows a query should read, worked out the plain way: person processing run over the events
 * in the order they were sent, each event's person and properties noted as it is processed, and
 * each distinct id's person looked up at the end.
 */
const expectedRows = (environmentId: number, sent: readonly CapturedEvent[], mode: PersonPropertiesMode) => {
  const { tables, distinctIds, persons } = memoryTables(environmentId)
  const then = new Map<string, object>()
  for (const captured of sent) {
    const normalised = normaliseEvent(captured)
    if (!normalised) continue
    processPersonEvent(tables, normalised)
    const uuid = distinctIds.get(normalised.distinctId)?.person_id
    const person = uuid ? persons.get(uuid) : undefined
    if (person) then.set(captured.uuid, person.properties)
  }
  return sent.map((captured) => {
    const uuid = distinctIds.get(captured.distinct_id)?.person_id
    const person = uuid ? persons.get(uuid) : undefined
    return {
      uuid: captured.uuid,
      distinctId: captured.distinct_id,
      timestamp: Date.parse(captured.timestamp),
      personId: person?.uuid ?? personUuid(environmentId, captured.distinct_id),
      personCreatedAt: person ? Date.parse(person.created_at) : Date.parse(captured.timestamp),
      personProperties: mode === 'current' ? person?.properties ?? {} : then.get(captured.uuid) ?? person?.properties ?? {},
    }
  }).sort((a, b) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : 1))
}

const read = async (source: ReadModelsSource, from: number | null, to: number, events: string[] | null) => {
  const rows: QueryEvent[] = []
  for await (const page of source.scan({ from, to, events })) rows.push(...page)
  return rows.map(({ uuid, distinctId, timestamp, personId, personCreatedAt, personProperties }) => ({ uuid, distinctId, timestamp, personId, personCreatedAt, personProperties }))
}

t.test('a query reads each event with the person it belongs to now and the properties it had then, as person processing decides', async (t) => {
  const service = await world(t)
  let environmentId = 100
  await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4 }), async (steps, chunks) => {
    environmentId++
    const sent = steps.map(capturedOf)
    const size = Math.ceil(sent.length / chunks)
    let position = null
    for (let i = 0; i < sent.length; i += size) position = await capture(service.log, environmentId, sent.slice(i, i + size))
    if (!(await service.models.waitFor(position!, CAPTURED_COLLECTIONS, 10_000))) throw new Error('projections did not catch up')
    for (const mode of ['at_event', 'current'] as const) {
      const expected = expectedRows(environmentId, sent, mode)
      const source = new ReadModelsSource(service.models, environmentId, { properties: mode, createdAt: true })
      t.same(await read(source, null, START + 11 * DAY, null), expected, `${mode}: every event`)
      const from = START + 2 * DAY
      const to = START + 5 * DAY
      const names = ['$identify', '$set']
      t.same(await read(source, from, to, names), expected.filter((row) => row.timestamp >= from && row.timestamp <= to && names.includes(sent.find((e) => e.uuid === row.uuid)!.event)), `${mode}: a range of some names`)
    }
    const whoOnly = new ReadModelsSource(service.models, environmentId, { properties: null, createdAt: false })
    t.same(await read(whoOnly, null, START + 11 * DAY, null), expectedRows(environmentId, sent, 'current').map((row) => ({ ...row, personCreatedAt: row.timestamp, personProperties: {} })),
      'reading neither properties nor creation: the same persons')
    const rows: QueryEvent[] = []
    for await (const page of whoOnly.scan({ from: null, to: START + 11 * DAY, events: null, properties: false })) rows.push(...page)
    t.same(rows.map(({ uuid, event, timestamp, properties, elementsChain }) => ({ uuid, event, timestamp, properties, elementsChain })),
      expectedRows(environmentId, sent, 'current').map(({ uuid, timestamp }) => ({ uuid, event: sent.find((e) => e.uuid === uuid)!.event, timestamp, properties: {}, elementsChain: '' })),
      'a scan without properties: the same events, with none')
  }), { numRuns: 25 })
})

t.test('a query reads a long history page by page, in order, without losing or repeating an event at a page edge', async (t) => {
  const service = await world(t)
  const environmentId = 7
  // 4,500 events, many sharing a timestamp, so page edges fall inside runs of equal times.
  const sent = Array.from({ length: 4500 }, (_, i) => event('$pageview', `u${i % 50}`, { timestamp: new Date(START + Math.floor(i / 7) * 1000).toISOString() }))
  let position = null
  for (let i = 0; i < sent.length; i += 500) position = await capture(service.log, environmentId, sent.slice(i, i + 500))
  t.ok(await service.models.waitFor(position!, CAPTURED_COLLECTIONS, 30_000))
  const rows = await read(new ReadModelsSource(service.models, environmentId, { properties: 'at_event', createdAt: true }), null, START + DAY, null)
  t.equal(rows.length, sent.length)
  t.equal(new Set(rows.map((row) => row.uuid)).size, sent.length, 'no event twice')
  t.ok(rows.every((row, i) => i === 0 || rows[i - 1]!.timestamp <= row.timestamp), 'in timestamp order')
})
