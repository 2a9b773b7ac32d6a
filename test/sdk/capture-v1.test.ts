import t, { type Test } from 'tap'
import { client } from '../support/client.js'
import { world } from '../support/world.js'
import { nodeClient } from './support/node-sdks.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  await api.get('/api/users/@me/')
  const address = w.app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return { ...w, api, host: `http://127.0.0.1:${address.port}`, events: `/api/environments/${w.installation.environment_id}/events/` }
}

t.test('posthog-node 5.70.0 in its v1 capture mode delivers to /i/v1/analytics/events', async (t) => {
  const s = await setup(t)
  // The SDK picks its capture mode from the environment when it is built.
  process.env['POSTHOG_CAPTURE_MODE'] = 'v1'
  const sdk = await nodeClient('posthog-node-5', s.installation.project_api_key, { host: s.host, flushAt: 1, flushInterval: 0, fetchRetryCount: 0 })
  delete process.env['POSTHOG_CAPTURE_MODE']
  const errors: unknown[] = []
  sdk.on('error', (error) => errors.push(error))
  sdk.capture({ distinctId: 'server-1', event: 'invoice paid', properties: { amount: 42, $session_id: 'session-9' } })
  await sdk.shutdown()
  t.same(errors, [])
  let found: { event: string; properties: Record<string, unknown> }[] = []
  for (let i = 0; i < 50 && found.length === 0; i++) {
    found = (await s.api.get(`${s.events}?event=invoice%20paid`)).body.results
    if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.equal(found.length, 1)
  t.match(found[0], { event: 'invoice paid', distinct_id: 'server-1', properties: { amount: 42, $session_id: 'session-9' } })
})

t.test('the v1 endpoint refuses what it cannot use in the capture error shape', async (t) => {
  const { app, installation } = await setup(t)
  const post = (headers: Record<string, string>, payload: string) =>
    app.inject({ method: 'POST', url: '/i/v1/analytics/events', headers: { 'content-type': 'application/json', ...headers }, payload })
  const auth = { authorization: `Bearer ${installation.project_api_key}` }
  const event = { event: 'e', uuid: '0190f7a0-0000-7000-8000-000000000001', distinct_id: 'u', timestamp: new Date().toISOString(), options: {}, properties: {} }
  t.same((await post(auth, JSON.stringify({ created_at: new Date().toISOString(), batch: [event] }))).json(), { results: {} })
  t.match((await post({}, JSON.stringify({ batch: [event] }))).json(), { status: 401, code: 'ingest_key_required' })
  t.equal((await post({ authorization: 'Bearer phc_unknown' }, JSON.stringify({ batch: [event] }))).statusCode, 403)
  t.match((await post(auth, '{"batch": [{"event": 1}]}')).json(), { status: 400, code: 'request_parsing_error' })
  t.equal((await post(auth, '{not json')).statusCode, 400)
  t.equal((await post(auth, '[]')).statusCode, 400)
})
