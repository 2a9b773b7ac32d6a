import t from 'tap'
import type { EventsCapturedData } from '../../src/ingestion/captured-event.js'
import { listQuarantined, retryQuarantined } from '../../src/cli/quarantine.js'
import { newEventId } from '../../src/kernel/ids.js'
import { allProjectors } from '../../src/modules.js'
import type { Projector } from '../../src/readstore/projector.js'
import { client } from '../support/client.js'
import { world } from '../support/world.js'

const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
const deepCapture = (token: string, depth: number): string =>
  `{"api_key":"${token}","event":"x","distinct_id":"a","properties":${nested(depth)}}`

const eventNames = async (w: Awaited<ReturnType<typeof world>>): Promise<string[]> => {
  const api = client(w.app, w.bearer(w.key.value))
  const head = (await w.log.headPosition())!
  await w.models.waitFor(head, ['events'], 5000)
  const body = (await api.get(`/api/projects/${w.installation.project_id}/events/?limit=100`)).body as { results: { event: string }[] }
  return body.results.map((e) => e.event).sort()
}

const health = async (w: Awaited<ReturnType<typeof world>>) => {
  const response = await w.app.inject({ method: 'GET', url: '/_health' })
  return { status: response.statusCode, body: response.json() as Record<string, any> }
}

t.test('the deeply nested capture of the reproduction is refused with a 400, and later events are projected', async (t) => {
  const w = await world(t)
  const token = w.installation.project_api_key
  for (const depth of [2000, 5000, 65]) {
    const response = await w.app.inject({ method: 'POST', url: '/capture/', headers: { 'content-type': 'application/json' }, payload: deepCapture(token, depth) })
    t.equal(response.statusCode, 400, `depth ${depth}`)
    t.same(response.json(), { status: 400, code: 'request_decoding_error', error: 'failed to decode request: JSON nested deeper than 64 levels' })
  }
  const batch = JSON.stringify({ api_key: token, batch: [{ event: 'deep', distinct_id: 'a', properties: JSON.parse(nested(3000)) }] })
  t.equal((await w.app.inject({ method: 'POST', url: '/batch/', headers: { 'content-type': 'application/json' }, payload: batch })).statusCode, 400)
  const deepest = await w.app.inject({ method: 'POST', url: '/capture/', headers: { 'content-type': 'application/json' }, payload: deepCapture(token, 62) })
  t.equal(deepest.statusCode, 200, 'the deepest body allowed (64 levels in all) is taken')
  await w.app.inject({ method: 'POST', url: '/capture/', payload: { api_key: token, event: 'after', distinct_id: 'a' } })
  t.same(await eventNames(w), ['after', 'x'])
  t.equal((await health(w)).status, 200)
})

t.test('over-deep JSON is refused by decide and the management API with PostHog\'s error shapes', async (t) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const deep = JSON.parse(nested(100))
  const decide = await w.app.inject({ method: 'POST', url: '/decide/?v=3', payload: { token: w.installation.project_api_key, distinct_id: 'a', person_properties: deep } })
  t.equal(decide.statusCode, 400)
  const dashboard = await api.post(`/api/projects/${w.installation.project_id}/dashboards/`, { name: 'd', filters: deep })
  t.equal(dashboard.status, 400)
  t.same(dashboard.body, { type: 'validation_error', code: 'parse_error', detail: 'JSON parse error - nested deeper than 64 levels', attr: null })
  const environment = await api.patch(`/api/environments/${w.installation.environment_id}/`, { test_account_filters: [deep] })
  t.equal(environment.status, 400)
  t.equal((await api.post(`/api/projects/${w.installation.project_id}/dashboards/`, { name: 'fine', filters: JSON.parse(nested(10)) })).status, 201)
})

t.test('a projector that throws on one chosen event: the rest is projected, health names it, and a retry after the fix applies it', async (t) => {
  const chosen = { broken: true }
  const events = allProjectors.find((p) => p.name === 'events')!
  const picky: Projector = {
    ...events,
    apply(view, event) {
      const { events: captured } = event.data as EventsCapturedData
      if (chosen.broken && captured.some((e) => e.event === 'chosen')) throw new RangeError('the events projector cannot take this one')
      events.apply(view, event)
    },
  }
  const w = await world(t, { projectors: allProjectors.map((p) => (p.name === 'events' ? picky : p)) })
  const token = w.installation.project_api_key
  await w.app.inject({ method: 'POST', url: '/batch/', payload: { api_key: token, batch: ['first', 'chosen', 'third'].map((event) => ({ event, distinct_id: 'a' })) } })
  await w.app.inject({ method: 'POST', url: '/capture/', payload: { api_key: token, event: 'later', distinct_id: 'b' } })
  t.same(await eventNames(w), ['first', 'later', 'third'], 'only the chosen analytics event of the request is left out')

  const unhealthy = await health(w)
  t.equal(unhealthy.status, 503)
  t.equal(unhealthy.body.status, 'error')
  t.match(unhealthy.body.problems, ['projection events quarantined 1 event(s)'])
  t.match(unhealthy.body.projections.events, { status: 'live', quarantined: 1 })
  t.match(unhealthy.body.quarantine, [{ projection: 'events', part: 1, event_type: 'EventsCaptured', error: 'RangeError: the events projector cannot take this one' }])
  t.match(await listQuarantined(w.store), [{ projection: 'events', part: 1 }], 'the command line lists the same')

  chosen.broken = false
  t.same(await retryQuarantined(w.log, w.store), ['events'])
  for (let i = 0; i < 100 && (await health(w)).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal((await health(w)).status, 200, 'the rebuilt projection has nothing quarantined')
  t.same(await eventNames(w), ['chosen', 'first', 'later', 'third'])
  t.same(await listQuarantined(w.store), [])
})

t.test('an over-deep event already in the log (stored before ingestion bounded depth) is quarantined by the real projectors, and everything after it is projected', async (t) => {
  const w = await world(t)
  const token = w.installation.project_api_key
  const environmentId = w.installation.environment_id
  await w.app.inject({ method: 'POST', url: '/capture/', payload: { api_key: token, event: 'before', distinct_id: 'a' } })
  const now = new Date().toISOString()
  const deep = (depth: number) => JSON.parse(nested(depth))
  const poison = { uuid: '0190a6f0-0000-7000-8000-000000000001', event: 'deep', distinct_id: 'a', timestamp: now, properties: deep(2000), set: deep(1500), set_once: null, ip: null, now, sent_at: null }
  await w.log.append(`ingest-${environmentId}-${newEventId()}`, [{ id: newEventId(), type: 'EventsCaptured', data: { environmentId, events: [poison] }, metadata: { actor: token, occurredAt: now } }])
  await w.app.inject({ method: 'POST', url: '/capture/', payload: { api_key: token, event: 'after', distinct_id: 'b', properties: { $set: { plan: 'pro' } } } })

  t.same(await eventNames(w), ['after', 'before'], 'the events read model holds every event but the poison one')
  const api = client(w.app, w.bearer(w.key.value))
  // Each projection retries the poison event on its own backoff before quarantining it: wait for this one too.
  await w.models.waitFor((await w.log.headPosition())!, ['persons'], 5000)
  const persons = (await api.get(`/api/projects/${w.installation.project_id}/persons/?distinct_id=b`)).body as { results: { properties: Record<string, unknown> }[] }
  t.match(persons.results, [{ properties: { plan: 'pro' } }], 'the persons read model moved past it too')

  const unhealthy = await health(w)
  t.equal(unhealthy.status, 503, 'health is not ok while an event is quarantined')
  const quarantined = (unhealthy.body.quarantine as { projection: string, event_type: string }[])
  t.ok(quarantined.some((q) => q.projection === 'events' && q.event_type === 'EventsCaptured'), 'health names the events projection\'s quarantined event')
  t.ok((unhealthy.body.problems as string[]).some((p) => /^projection events quarantined 1 event/.test(p)))
  t.same((await listQuarantined(w.store)).map((q) => q.projection).filter((name) => name === 'events'), ['events'], 'the command line lists it')
})
