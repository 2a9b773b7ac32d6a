import t from 'tap'
import { initialize, issueApiKey } from '../../src/accounts/commands.js'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { deliveryChannels } from '../../src/delivery/channels.js'
import { runDeliveries, type DeliveryJobDeps } from '../../src/delivery/delivery-job.js'
import { runSubscriptionCommand, schedulerContext } from '../../src/delivery/deliver.js'
import { openStorage } from '../../src/storage.js'
import { allProjectors } from '../../src/modules.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { client } from '../support/client.js'
import { collect } from '../support/collect.js'
import { httpReceiver } from '../support/receiver.js'
import { tempDir } from '../support/temp.js'
import { PUBLIC_URL, deliveryWorld } from './support.js'

const minutesAfter = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString()

t.test('a receiver that fails twice and then succeeds gets the delivery once, on the third attempt, after the backoff', async (t) => {
  const w = await deliveryWorld(t)
  const receiver = await httpReceiver(t, [500, 503, 200])
  const id = await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const due = '2027-01-05T09:00:00Z'
  await w.runAt(due)
  t.equal(receiver.received.length, 1)
  await w.runAt(minutesAfter(due, 0.9))
  t.equal(receiver.received.length, 1, 'no retry before the first backoff (one minute)')
  await w.runAt(minutesAfter(due, 1))
  t.equal(receiver.received.length, 2, 'the second attempt after one minute')
  await w.runAt(minutesAfter(due, 5))
  t.equal(receiver.received.length, 2, 'no retry before the second backoff (five minutes after the second attempt)')
  await w.runAt(minutesAfter(due, 6))
  t.equal(receiver.received.length, 3, 'the third attempt')
  await w.runAt(minutesAfter(due, 60))
  t.equal(receiver.received.length, 3, 'and nothing after it succeeded')
  const deliveries = (await w.api.get(`${w.base}${id}/deliveries/`)).body
  t.equal(deliveries.count, 1)
  t.match(deliveries.results[0], { occurrence: due, status: 'delivered', attempts: 3, reason: null, target_type: 'webhook', test: false })
  t.equal((await w.subscription(id)).next_delivery_date, '2027-01-06T09:00:00Z', 'the schedule moved on once, at the claim')
})

t.test('a receiver that always fails ends in a recorded failure, and the next occurrence is still delivered', async (t) => {
  const w = await deliveryWorld(t)
  const receiver = await httpReceiver(t, [500])
  const id = await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const due = '2027-01-05T09:00:00Z'
  for (const minutes of [0, 1, 6, 31, 60, 120]) await w.runAt(minutesAfter(due, minutes))
  t.equal(receiver.received.length, 4, 'four attempts, no more')
  const failed = (await w.api.get(`${w.base}${id}/deliveries/`)).body.results
  t.match(failed, [{ occurrence: due, status: 'failed', attempts: 4, reason: /500/ }])
  receiver.answer([200])
  await w.runAt('2027-01-06T09:00:00Z')
  t.equal(receiver.received.length, 5)
  const history = (await w.api.get(`${w.base}${id}/deliveries/`)).body.results
  t.match(history, [{ occurrence: '2027-01-06T09:00:00Z', status: 'delivered', attempts: 1 }, { occurrence: due, status: 'failed' }], 'newest first')
})

t.test('a receiver that hangs is cut off after the timeout and the attempt is retried later', async (t) => {
  const w = await deliveryWorld(t, { timeoutMs: 300 })
  const receiver = await httpReceiver(t, ['hang'])
  const id = await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const started = performance.now()
  await w.runAt('2027-01-05T09:00:00Z')
  t.ok(performance.now() - started < 3000, 'the pass did not wait for the receiver')
  t.equal(receiver.received.length, 1)
  const inFlight = (await w.subscription(id)).delivery
  t.match(inFlight, { attempt: 1, retry_at: '2027-01-05T09:01:00.000Z' }, 'a retry is due in a minute')
})

t.test('outgoing deliveries never reach loopback unless allowed, and such a refusal is not retried', async (t) => {
  const w = await deliveryWorld(t, { allowPrivate: false })
  const receiver = await httpReceiver(t)
  const id = await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z')
  await w.runAt('2027-01-05T10:00:00Z')
  t.equal(receiver.received.length, 0, 'no connection reached the receiver')
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'failed', attempts: 1 }])
})

t.test('an attempt whose scheduler stopped before recording the outcome is recorded as failed, not sent again', async (t) => {
  const w = await deliveryWorld(t)
  const receiver = await httpReceiver(t)
  const id = await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const due = '2027-01-05T09:00:00Z'
  // A scheduler claims the occurrence and stops before sending or recording anything.
  await runSubscriptionCommand(w.log, id, { type: 'ClaimDelivery', occurrence: due, attempt: 1, claimedBy: 'gone', at: due }, schedulerContext(new Date(due)))
  await w.settle()
  await w.runAt(minutesAfter(due, 5))
  t.equal(receiver.received.length, 0, 'a claim held by another scheduler is left alone while it may still be sending')
  await w.runAt(minutesAfter(due, 10))
  t.equal(receiver.received.length, 0)
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ occurrence: due, status: 'failed', reason: /interrupted/ }])
  await w.runAt('2027-01-06T09:00:00Z')
  t.equal(receiver.received.length, 1, 'the series carries on')
})

t.test('two schedulers on the same data directory, running at the same instants, deliver each occurrence once', async (t) => {
  const config = loadConfig({ HEDGELOG_DATA_DIR: tempDir(t) })
  const receiver = await httpReceiver(t, [200])
  const channels = deliveryChannels({ mailer: undefined, allowPrivate: true, timeoutMs: 2000, log: () => {} })
  // Two processes' worth of storage: each opens the data directory itself; one runs the projectors and the API.
  const first = await openStorage(config)
  const second = await openStorage(config)
  const registry = new ProjectionRegistry(first.store)
  const projections = new ProjectionSet({ log: first.log, store: first.store, registry, projectors: allProjectors })
  await projections.start()
  const models = new ReadModels({ store: first.store, registry, projectors: allProjectors, projections })
  const secondModels = new ReadModels({ store: second.store, registry: new ProjectionRegistry(second.store), projectors: allProjectors })
  const app = await buildApp({ log: first.log, store: first.store, models, projections, roles: ['api'], delivery: { channels, publicUrl: PUBLIC_URL } })
  t.teardown(async () => {
    await app.close()
    await projections.stop()
    for (const { log, store } of [first, second]) { await log.close(); await store.close() }
  })
  const installation = await initialize(first.log, schedulerContext(new Date()))
  const key = await issueApiKey(first.log, { userUuid: installation.user_uuid, scopes: ['*'], label: 'test' }, schedulerContext(new Date()))
  const api = client(app, { authorization: `Bearer ${key.value}` })
  const environment = `/api/environments/${installation.environment_id}`
  const dashboard = (await api.post(`${environment}/dashboards/`, { name: 'Shared' })).body
  const ids: number[] = []
  for (let i = 0; i < 5; i++) {
    const created = await api.post(`${environment}/subscriptions/`, {
      dashboard: dashboard.id, target_type: 'webhook', target_value: `${receiver.url}/${i}`, frequency: 'daily', start_date: '2027-01-05T09:00:00Z',
    })
    ids.push(created.body.id)
  }
  const clock = { now: new Date() }
  const schedulers: DeliveryJobDeps[] = [
    { log: first.log, models, channels, publicUrl: PUBLIC_URL, owner: 'scheduler-1', clock: () => clock.now },
    { log: second.log, models: secondModels, channels, publicUrl: PUBLIC_URL, owner: 'scheduler-2', clock: () => clock.now },
  ]
  const instants = ['2027-01-05T09:00:00Z', '2027-01-06T09:00:00Z', '2027-01-07T09:00:00Z']
  for (const at of instants) {
    clock.now = new Date(at)
    await Promise.all(schedulers.map((deps) => runDeliveries(deps, clock.now)))
    const head = await first.log.headPosition()
    if (head) await models.waitFor(head, ['subscriptions'])
  }
  t.equal(receiver.received.length, ids.length * instants.length, `each of ${ids.length} subscriptions got each of ${instants.length} occurrences once`)
  const keys = receiver.received.map((r) => { const body = JSON.parse(r.body); return `${body.subscription.id}@${body.occurrence}` })
  t.equal(new Set(keys).size, keys.length, 'no occurrence twice')
  const claims = (await collect(second.log.readAll())).filter((e) => e.type === 'SubscriptionDeliveryClaimed')
  t.equal(claims.length, ids.length * instants.length, 'one claim per occurrence in the log')
})
