import t from 'tap'
import { client } from '../support/client.js'
import { addMember } from '../support/members.js'
import { deliveryWorld } from '../delivery/support.js'

/** What a client library that always declares JSON sends with a bodiless request. */
const EMPTY_JSON = { 'content-type': 'application/json', 'content-length': '0' }

t.test('an empty JSON body is no body: removing a collaborator and a test delivery succeed', async (t) => {
  const w = await deliveryWorld(t)
  const owner = await addMember(w)
  const ownerApi = client(w.app, owner.headers)
  const dashboards = `/api/environments/${w.environmentId}/dashboards/`
  const dashboard = (await ownerApi.post(dashboards, { name: 'restricted', restriction_level: 37 })).body
  const colleague = await addMember(w)
  const collaborators = `${dashboards}${dashboard.id}/collaborators/`
  t.equal((await ownerApi.post(collaborators, { user_uuid: colleague.uuid, level: 37 })).status, 201)

  const removed = await w.app.inject({ method: 'DELETE', url: `${collaborators}${colleague.uuid}/`, headers: { ...owner.headers, ...EMPTY_JSON }, payload: '' })
  t.equal(removed.statusCode, 204, removed.body)
  t.same((await ownerApi.get(collaborators)).body, [], 'the collaborator is gone')

  const id = await w.subscribe({ target_type: 'webhook', target_value: 'http://127.0.0.1:9/', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const tested = await w.app.inject({ method: 'POST', url: `${w.base}${id}/test-delivery/`, headers: { ...w.bearer(w.key.value), ...EMPTY_JSON }, payload: '' })
  t.equal(tested.statusCode, 200, tested.body)
  t.match(tested.json(), { test: true, target_type: 'webhook' })
})

t.test('a route that needs fields still names the missing one, and bad JSON is still a parse error', async (t) => {
  const w = await deliveryWorld(t)
  const created = await w.app.inject({ method: 'POST', url: w.base, headers: { ...w.bearer(w.key.value), ...EMPTY_JSON }, payload: '' })
  const bare = await w.app.inject({ method: 'POST', url: w.base, headers: w.bearer(w.key.value) })
  t.equal(created.statusCode, 400)
  t.match(created.json(), { type: 'validation_error', attr: String })
  t.same(created.json(), bare.json(), 'the same refusal as a request with no body at all')
  const broken = await w.app.inject({ method: 'POST', url: w.base, headers: { ...w.bearer(w.key.value), 'content-type': 'application/json' }, payload: '{"title":' })
  t.equal(broken.statusCode, 400)
  t.match(broken.json(), { code: 'parse_error' })
  const poisoned = await w.app.inject({ method: 'POST', url: w.base, headers: { ...w.bearer(w.key.value), 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1}}' })
  t.equal(poisoned.statusCode, 400, 'prototype poisoning is still refused')
})
