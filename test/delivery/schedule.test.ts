import t, { type Test } from 'tap'
import { subscriptionDeliveryJob } from '../../src/delivery/delivery-job.js'
import { startScheduler } from '../../src/scheduler/scheduler.js'
import { httpReceiver } from '../support/receiver.js'
import { deliveryWorld, secondBefore } from './support.js'

/**
 * Runs the scheduler at each due instant, one second before it too, until the series ends or
 * `most` deliveries were made; answers the occurrences the receiver got, in order.
 */
const deliverSeries = async (t: Test, fields: Record<string, unknown>, most: number) => {
  const w = await deliveryWorld(t)
  const receiver = await httpReceiver(t)
  const id = await w.subscribe({ target_type: 'webhook', target_value: `${receiver.url}/hook`, ...fields })
  for (let i = 0; i < most; i++) {
    const due = (await w.subscription(id)).next_delivery_date
    if (due === null) break
    const before = receiver.received.length
    await w.runAt(secondBefore(due))
    t.equal(receiver.received.length, before, `nothing is sent a second before ${due}`)
    await w.runAt(due)
    t.equal(receiver.received.length, before + 1, `one delivery at ${due}`)
  }
  const next = (await w.subscription(id)).next_delivery_date
  return { occurrences: receiver.received.map((r) => JSON.parse(r.body).occurrence as string), next }
}

t.test('a daily series with a count delivers that many times, then has no next date', async (t) => {
  const { occurrences, next } = await deliverSeries(t, { frequency: 'daily', start_date: '2027-01-05T09:00:00Z', count: 3 }, 10)
  t.same(occurrences, ['2027-01-05T09:00:00Z', '2027-01-06T09:00:00Z', '2027-01-07T09:00:00Z'])
  t.equal(next, null)
})

t.test('a daily series with an until_date stops at it', async (t) => {
  const { occurrences, next } = await deliverSeries(t, { frequency: 'daily', start_date: '2027-01-05T09:00:00Z', until_date: '2027-01-08T08:00:00Z' }, 10)
  t.same(occurrences, ['2027-01-05T09:00:00Z', '2027-01-06T09:00:00Z', '2027-01-07T09:00:00Z'])
  t.equal(next, null)
})

t.test('a weekly series on Mondays and Wednesdays delivers on those days', async (t) => {
  const { occurrences, next } = await deliverSeries(t, {
    frequency: 'weekly', byweekday: ['monday', 'wednesday'], start_date: '2027-01-04T07:30:00Z',
  }, 4)
  t.same(occurrences, ['2027-01-04T07:30:00Z', '2027-01-06T07:30:00Z', '2027-01-11T07:30:00Z', '2027-01-13T07:30:00Z'])
  t.equal(next, '2027-01-18T07:30:00Z')
})

t.test('a monthly series on the first Friday (bysetpos 1) delivers on each month\'s first Friday', async (t) => {
  const { occurrences, next } = await deliverSeries(t, {
    frequency: 'monthly', byweekday: ['friday'], bysetpos: 1, start_date: '2027-01-01T12:00:00Z',
  }, 4)
  t.same(occurrences, ['2027-01-01T12:00:00Z', '2027-02-05T12:00:00Z', '2027-03-05T12:00:00Z', '2027-04-02T12:00:00Z'])
  t.equal(next, '2027-05-07T12:00:00Z')
})

t.test('a scheduler that was down sends one delivery for the missed run, then carries on with the schedule', async (t) => {
  const w = await deliveryWorld(t)
  const receiver = await httpReceiver(t)
  const id = await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-08T10:00:00Z')
  await w.runAt('2027-01-08T10:05:00Z')
  t.equal(receiver.received.length, 1, 'three missed occurrences make one delivery')
  t.equal(JSON.parse(receiver.received[0]!.body).occurrence, '2027-01-08T09:00:00Z', 'named for the latest missed occurrence')
  t.equal((await w.subscription(id)).next_delivery_date, '2027-01-09T09:00:00Z')
  await w.runAt('2027-01-09T09:00:00Z')
  t.equal(receiver.received.length, 2)
})

t.test('a deleted subscription is not delivered, and a restored one is', async (t) => {
  const w = await deliveryWorld(t)
  const receiver = await httpReceiver(t)
  const id = await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.api.patch(`${w.base}${id}/`, { deleted: true })
  await w.runAt('2027-01-05T09:00:00Z')
  t.equal(receiver.received.length, 0)
  await w.api.patch(`${w.base}${id}/`, { deleted: false })
  await w.runAt('2027-01-05T09:00:01Z')
  t.equal(receiver.received.length, 1)
})

t.test('the scheduler role runs the delivery job under its lease', async (t) => {
  const w = await deliveryWorld(t)
  const receiver = await httpReceiver(t)
  await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const clock = () => new Date('2027-01-05T09:00:00Z')
  const jobs = [subscriptionDeliveryJob({ ...w.deps, clock, everyMs: 10 })]
  const schedulers = ['one', 'two'].map((owner) => startScheduler({ store: w.store, jobs, owner, tickMs: 10, clock }))
  for (let i = 0; i < 200 && receiver.received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  await new Promise((resolve) => setTimeout(resolve, 200))
  for (const scheduler of schedulers) await scheduler.stop()
  t.equal(receiver.received.length, 1, 'delivered once')
})
