import t from 'tap'
import { decideDelivery } from '../../src/subscriptions/delivery-decider.js'
import { deliveryWork } from '../../src/subscriptions/delivery-policy.js'
import type { SubscriptionEvent } from '../../src/subscriptions/events.js'
import { evolveSubscription, type Subscription } from '../../src/subscriptions/state.js'

const created: SubscriptionEvent = {
  type: 'SubscriptionCreated',
  data: {
    subscriptionId: 7, environmentId: 1, createdBy: 'u', at: '2027-01-01T00:00:00Z', nextDeliveryDate: '2027-01-05T09:00:00Z',
    fields: {
      dashboard: 1, insight: null, target_type: 'webhook', target_value: 'https://example.com/hook', frequency: 'daily', interval: 1,
      byweekday: null, bysetpos: null, count: null, start_date: '2027-01-05T09:00:00Z', until_date: null, title: null,
    },
  },
}
const target = { target_type: 'webhook', target_value: 'https://example.com/hook', recipients: [] }
const fold = (events: SubscriptionEvent[]): Subscription => events.reduce<Subscription | null>(evolveSubscription, null)!
const due = '2027-01-05T09:00:00Z'
const claim = (state: Subscription, at: string, attempt = 1, occurrence = due) =>
  decideDelivery({ type: 'ClaimDelivery', occurrence, attempt, claimedBy: 'a', at }, state)

t.test('an occurrence is claimed once: not before it is due, and not again once claimed', async (t) => {
  const fresh = fold([created])
  t.same(claim(fresh, '2027-01-05T08:59:59Z'), [], 'not yet due')
  const [claimed] = claim(fresh, due)
  t.match(claimed, { type: 'SubscriptionDeliveryClaimed', data: { occurrence: due, attempt: 1, nextDeliveryDate: '2027-01-06T09:00:00Z' } })
  const taken = fold([created, claimed!])
  t.same(claim(taken, due), [], 'a second scheduler finds it taken')
  t.same(deliveryWork(taken, new Date(due)), null, 'and has no work for it while the claim is fresh')
})

t.test('a failed attempt waits for its backoff; the retry is claimed once; the fourth failure gives up', async (t) => {
  let events: SubscriptionEvent[] = [created, ...claim(fold([created]), due)]
  for (const [attempt, retryAt] of [[1, '2027-01-05T09:01:00.000Z'], [2, '2027-01-05T09:06:00.000Z'], [3, '2027-01-05T09:31:00.000Z']] as const) {
    const failed = decideDelivery({ type: 'RecordAttempt', occurrence: due, attempt, target, outcome: { status: 'failed', reason: 'HTTP 500' }, at: events.at(-1)!.data.at as string }, fold(events))
    t.match(failed, [{ type: 'SubscriptionDeliveryAttemptFailed', data: { attempt, retryAt } }])
    events = [...events, ...failed]
    t.same(claim(fold(events), new Date(Date.parse(retryAt) - 1000).toISOString(), attempt + 1), [], `no retry before ${retryAt}`)
    const retried = claim(fold(events), retryAt, attempt + 1)
    t.equal(retried.length, 1)
    events = [...events, ...retried]
    t.same(claim(fold(events), retryAt, attempt + 1), [], 'the retry is taken once')
  }
  const last = decideDelivery({ type: 'RecordAttempt', occurrence: due, attempt: 4, target, outcome: { status: 'failed', reason: 'HTTP 500' }, at: '2027-01-05T09:31:01Z' }, fold(events))
  t.match(last, [{ type: 'SubscriptionDeliveryFailed', data: { attempts: 4, reason: 'HTTP 500', test: false } }])
  t.equal(fold([...events, ...last]).delivery, null)
})

t.test('a refusal is not retried, and an outcome for an attempt not held is ignored', async (t) => {
  const claimed = fold([created, ...claim(fold([created]), due)])
  t.match(decideDelivery({ type: 'RecordAttempt', occurrence: due, attempt: 1, target, outcome: { status: 'refused', reason: 'not allowed' }, at: due }, claimed),
    [{ type: 'SubscriptionDeliveryFailed', data: { attempts: 1 } }])
  t.same(decideDelivery({ type: 'RecordAttempt', occurrence: due, attempt: 2, target, outcome: { status: 'delivered' }, at: due }, claimed), [])
})

t.test('a claim left without an outcome becomes work to record as interrupted after ten minutes', async (t) => {
  const claimed = fold([created, ...claim(fold([created]), due)])
  t.equal(deliveryWork(claimed, new Date('2027-01-05T09:09:59Z')), null)
  t.same(deliveryWork(claimed, new Date('2027-01-05T09:10:00Z')), { kind: 'interrupted', occurrence: due, attempt: 1 })
})
