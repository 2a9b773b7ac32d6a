import t from 'tap'
import { ConfigError, loadConfig } from '../src/config.js'

t.test('defaults serve on 127.0.0.1:8000 with data in ./data', async (t) => {
  const config = loadConfig({})
  t.equal(config.PORT, 8000)
  t.equal(config.HOST, '127.0.0.1')
  t.match(config.eventLogPath, /data\/events\.sqlite$/)
  t.equal(config.HEDGELOG_EVENTSTORE_URL, undefined)
})

t.test('a bad value names the variable and what was given', async (t) => {
  t.throws(() => loadConfig({ PORT: 'abc' }), new ConfigError('invalid configuration: PORT must be a whole number from 0 to 65535 (got "abc")'))
  t.throws(() => loadConfig({ PORT: '70000' }), { message: /^invalid configuration: PORT / })
  t.throws(() => loadConfig({ HEDGELOG_EVENTSTORE_URL: 'http://x' }), { message: /^invalid configuration: HEDGELOG_EVENTSTORE_URL must be an esdb:\/\// })
  t.throws(() => loadConfig({ HEDGELOG_MONGO_URL: 'localhost' }), { message: /^invalid configuration: HEDGELOG_MONGO_URL / })
  t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), { message: /^invalid configuration: LOG_LEVEL must be one of/ })
})

t.test('empty variables count as unset', async (t) => {
  t.equal(loadConfig({ PORT: '', HEDGELOG_MONGO_URL: '' }).PORT, 8000)
})

t.test('production URLs are accepted', async (t) => {
  const config = loadConfig({ HEDGELOG_EVENTSTORE_URL: 'esdb://localhost:2113?tls=false', HEDGELOG_MONGO_URL: 'mongodb://localhost:27017/?replicaSet=rs0' })
  t.equal(config.HEDGELOG_MONGO_DATABASE, 'hedgelog')
})

t.test('given an EventStoreDB URL that turns off throwOnAppendFailure, when loading, then start-up is refused in one line', async (t) => {
  for (const url of ['esdb://localhost:2113?tls=false&throwOnAppendFailure=false', 'esdb://localhost:2113?THROW_ON_APPEND_FAILURE=false']) {
    t.throws(() => loadConfig({ HEDGELOG_EVENTSTORE_URL: url }), { message: /^invalid configuration: HEDGELOG_EVENTSTORE_URL throwOnAppendFailure must be left at its default/ }, url)
  }
  t.equal(loadConfig({ HEDGELOG_EVENTSTORE_URL: 'esdb://localhost:2113?tls=false&throwOnAppendFailure=true' }).HEDGELOG_EVENTSTORE_URL,
    'esdb://localhost:2113?tls=false&throwOnAppendFailure=true', 'the default spelled out is accepted')
})

t.test('the bounds per client address have defaults and refuse bad values', async (t) => {
  const defaults = loadConfig({})
  t.equal(defaults.HEDGELOG_AUTH_FAILURE_LIMITS, '100/minute,1000/hour')
  t.equal(defaults.HEDGELOG_CONNECTIONS_PER_ADDRESS, 256)
  t.same(defaults.HEDGELOG_TRUSTED_PROXIES, [])
  t.same(loadConfig({ HEDGELOG_TRUSTED_PROXIES: '10.0.0.1, fd00::1' }).HEDGELOG_TRUSTED_PROXIES, ['10.0.0.1', 'fd00::1'])
  t.throws(() => loadConfig({ HEDGELOG_TRUSTED_PROXIES: 'lb.internal' }), { message: /^invalid configuration: HEDGELOG_TRUSTED_PROXIES must be IP addresses/ })
  t.throws(() => loadConfig({ HEDGELOG_AUTH_FAILURE_LIMITS: 'many' }), { message: /^invalid configuration: HEDGELOG_AUTH_FAILURE_LIMITS / })
  t.throws(() => loadConfig({ HEDGELOG_CONNECTIONS_PER_ADDRESS: '-1' }), { message: /^invalid configuration: HEDGELOG_CONNECTIONS_PER_ADDRESS / })
})

t.test('the waits and deadlines for the stores have defaults and refuse bad values', async (t) => {
  const defaults = loadConfig({})
  t.equal(defaults.HEDGELOG_STORE_WAIT_MS, 15_000)
  t.equal(defaults.HEDGELOG_HEALTH_PROBE_TIMEOUT_MS, 500)
  t.equal(defaults.HEDGELOG_EVENTSTORE_DEADLINE_MS, 10_000)
  t.equal(defaults.HEDGELOG_EVENTSTORE_APPEND_DEADLINE_MS, 10_000)
  t.equal(defaults.HEDGELOG_MONGO_SERVER_SELECTION_TIMEOUT_MS, 10_000)
  t.equal(defaults.HEDGELOG_MONGO_CONNECT_TIMEOUT_MS, 5_000)
  t.equal(defaults.HEDGELOG_MONGO_SOCKET_TIMEOUT_MS, 60_000)
  t.throws(() => loadConfig({ HEDGELOG_HEALTH_PROBE_TIMEOUT_MS: '2000' }), new ConfigError('invalid configuration: HEDGELOG_HEALTH_PROBE_TIMEOUT_MS must be a whole number of milliseconds from 50 to 900 (got "2000")'))
  t.throws(() => loadConfig({ HEDGELOG_EVENTSTORE_DEADLINE_MS: 'soon' }), { message: /^invalid configuration: HEDGELOG_EVENTSTORE_DEADLINE_MS must be a whole number of milliseconds/ })
  t.throws(() => loadConfig({ HEDGELOG_STORE_WAIT_MS: '-1' }), { message: /^invalid configuration: HEDGELOG_STORE_WAIT_MS / })
})
