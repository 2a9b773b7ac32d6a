import t from 'tap'
import { world } from '../support/world.js'
import { CAPTURED_COLLECTIONS } from '../projections/support/captured.js'

// JSON text, not an object literal: in a literal `__proto__` sets the prototype, in JSON.parse it
// is a key like any other, as it is in PostHog's Python dicts.
const batch = (token: string, events: string[]): string => `{"api_key":"${token}","batch":[${events.join(',')}]}`

const ingested = async (t: Parameters<typeof world>[0], events: string[]) => {
  const w = await world(t)
  const response = await w.app.inject({
    method: 'POST', url: '/batch/', headers: { 'content-type': 'application/json' }, payload: batch(w.installation.project_api_key, events),
  })
  t.equal(response.statusCode, 200)
  if (!(await w.models.waitFor((await w.log.headPosition())!, CAPTURED_COLLECTIONS, 10_000))) throw new Error('projections did not catch up')
  const get = async (path: string) => (await w.app.inject({ method: 'GET', url: `/api/projects/${w.installation.project_id}${path}`, headers: w.bearer(w.key.value) })).json()
  return { ...w, get }
}

const entries = (object: Record<string, unknown>): [string, unknown][] =>
  Object.entries(object).filter(([key]) => key !== '$creator_event_uuid' && key !== '$ip').sort(([a], [b]) => a.localeCompare(b))

t.test('a person property named like what Object.prototype holds is stored as any other', async (t) => {
  const w = await ingested(t, [
    '{"event":"e","distinct_id":"u1","$set":{"__proto__":{"b":2},"constructor":"x","toString":"z"},"$set_once":{"valueOf":"v","__proto__":"once"}}',
    '{"event":"e","distinct_id":"u2","$set_once":{"__proto__":"once"}}',
    '{"event":"e","distinct_id":"u2","$set":{"__proto__":"set","hasOwnProperty":"h"},"$set_once":{"__proto__":"ignored"}}',
    '{"event":"e","distinct_id":"u3","properties":{"$current_url":"https://a.test/"},"$set":{"__proto__":"with lifted"}}',
    '{"event":"e","distinct_id":"u3","properties":{"$unset":["__proto__"]}}',
  ])
  const persons = new Map((await w.get('/persons/')).results.map((p: { name: string; properties: Record<string, unknown> }) => [p.name, entries(p.properties)]))
  t.same(persons.get('u1'), [['__proto__', { b: 2 }], ['constructor', 'x'], ['toString', 'z'], ['valueOf', 'v']], '$set and $set_once on a new person')
  t.same(persons.get('u2'), [['__proto__', 'set'], ['hasOwnProperty', 'h']], '$set over $set_once on an existing person')
  t.same(persons.get('u3'), [['$current_url', 'https://a.test/'], ['$initial_current_url', 'https://a.test/']], '$unset after a $set beside lifted properties')
})

t.test('an event property named __proto__ is kept on the event, not turned into the properties it holds', async (t) => {
  const w = await ingested(t, ['{"event":"e","distinct_id":"u1","properties":{"__proto__":{"a":1},"constructor":"c"}}'])
  const [event] = (await w.get('/events/')).results
  t.same(entries(event.properties), [['__proto__', { a: 1 }], ['constructor', 'c']])
})
