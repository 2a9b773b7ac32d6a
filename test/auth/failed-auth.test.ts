import t, { type Test } from 'tap'
import { world } from '../support/world.js'

const LIMIT = 5
const throttledShape = { type: 'throttled_error', code: 'throttled', detail: /^Request was throttled\. Expected available in \d+ seconds?\.$/, attr: null }

const setup = (t: Test) =>
  world(t, { app: { authFailureLimits: [{ limit: LIMIT, ms: 60_000 }], trustedProxies: ['10.0.0.1'] } })

t.test('wrong personal API keys from one address end in 429 with Retry-After; other addresses are served', async (t) => {
  const w = await setup(t)
  const me = (key: string, remoteAddress: string, headers: Record<string, string> = {}) =>
    w.app.inject({ method: 'GET', url: '/api/users/@me/', remoteAddress, headers: { ...w.bearer(key), ...headers } })
  for (let i = 0; i < LIMIT; i++) {
    const refused = await me(`phx_wrong_${i}`, '203.0.113.7')
    t.equal(refused.statusCode, 401, 'each failure keeps its own answer until the limit')
    t.equal(refused.json().code, 'authentication_failed')
  }
  const throttled = await me('phx_wrong_again', '203.0.113.7')
  t.equal(throttled.statusCode, 429)
  t.match(throttled.headers['retry-after'], /^\d+$/)
  t.ok(Number(throttled.headers['retry-after']) > 0 && Number(throttled.headers['retry-after']) <= 60)
  t.match(throttled.json(), throttledShape)
  t.equal((await me(w.key.value, '203.0.113.7')).statusCode, 429, 'the address is refused whatever it presents, so a right guess does not show')
  t.equal((await me(w.key.value, '203.0.113.8')).statusCode, 200, 'a valid caller from another address is served')
  t.equal((await me('phx_wrong', '203.0.113.8')).statusCode, 401, 'and another address has its own count')
  t.equal((await me(w.key.value, '2001:db8::1')).statusCode, 200)

  // A client cannot escape its count by naming other addresses in X-Forwarded-For.
  for (let i = 0; i < LIMIT; i++) await me(`phx_spoof_${i}`, '203.0.113.9', { 'x-forwarded-for': `192.0.2.${i}` })
  t.equal((await me('phx_spoof', '203.0.113.9', { 'x-forwarded-for': '192.0.2.200' })).statusCode, 429)
  t.equal((await me(w.key.value, '192.0.2.1')).statusCode, 200, 'nor have the addresses it named refused')
})

t.test('behind a trusted proxy each client is counted by the address the proxy forwards', async (t) => {
  const w = await setup(t)
  const viaProxy = (key: string, client: string) => w.app.inject({
    method: 'GET', url: '/api/users/@me/', remoteAddress: '10.0.0.1', headers: { ...w.bearer(key), 'x-forwarded-for': `198.18.0.99, ${client}` },
  })
  for (let i = 0; i < LIMIT; i++) t.equal((await viaProxy(`phx_wrong_${i}`, '198.18.0.1')).statusCode, 401)
  t.equal((await viaProxy(w.key.value, '198.18.0.1')).statusCode, 429)
  t.equal((await viaProxy(w.key.value, '198.18.0.2')).statusCode, 200, 'another client behind the same proxy is served')
})

t.test('wrong project tokens on capture and /decide count too; capture keeps its 403 until the limit', async (t) => {
  const w = await setup(t)
  const capture = (token: string, remoteAddress: string) =>
    w.app.inject({ method: 'POST', url: '/capture/', remoteAddress, payload: { api_key: token, event: 'e', distinct_id: 'd' } })
  const decide = (token: string, remoteAddress: string) =>
    w.app.inject({ method: 'POST', url: '/decide/?v=3', remoteAddress, payload: { api_key: token, distinct_id: 'd' } })
  for (let i = 0; i < 3; i++) t.match(await capture(`phc_wrong_${i}`, '203.0.113.20'), { statusCode: 403 })
  t.match((await capture('phc_wrong', '203.0.113.20')).json(), { status: 403, code: 'ingest_key_unknown' })
  const refused = await decide('phc_wrong', '203.0.113.20')
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().code, 'invalid_api_key')
  const throttled = await capture(w.installation.project_api_key, '203.0.113.20')
  t.equal(throttled.statusCode, 429, 'over the limit even a right token is refused')
  t.match(throttled.headers['retry-after'], /^\d+$/)
  t.match(throttled.json(), throttledShape)
  t.equal((await decide(w.installation.project_api_key, '203.0.113.20')).statusCode, 429)
  t.equal((await capture(w.installation.project_api_key, '203.0.113.21')).statusCode, 200, 'another address captures')
  t.equal((await decide(w.installation.project_api_key, '203.0.113.21')).statusCode, 200)
  const missing = await w.app.inject({ method: 'POST', url: '/capture/', remoteAddress: '203.0.113.22', payload: { event: 'e', distinct_id: 'd' } })
  t.equal(missing.statusCode, 401, 'a request with no token at all is no guess')
  for (let i = 0; i < LIMIT; i++) await w.app.inject({ method: 'POST', url: '/capture/', remoteAddress: '203.0.113.22', payload: { event: 'e', distinct_id: 'd' } })
  t.equal((await capture(w.installation.project_api_key, '203.0.113.22')).statusCode, 200, 'and is not counted')
})
