import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { basicUser, type BasicUser } from '../../src/accounts/users.js'
import { jsonWriter } from '../../src/http/json-writer.js'
import { paginated } from '../../src/http/pagination.js'
import { deepFreeze } from '../../src/kernel/deep-freeze.js'
import { SubscriptionListResponse, SubscriptionResponse } from '../../src/subscriptions/schemas.js'
import { subscriptionJson } from '../../src/subscriptions/serialize.js'
import type { Subscription } from '../../src/subscriptions/state.js'

const ada = deepFreeze({ id: 1, uuid: 'u-ada', distinct_id: 'd', first_name: 'Ada', last_name: '', email: 'ada@example.com', is_email_verified: false, hedgehog_config: null, role_at_organization: null })
const users = (user: Record<string, unknown> = ada): Map<string, BasicUser> => new Map([[String(user['uuid']), deepFreeze(basicUser(user))]])

const subscription = (overrides: Partial<Subscription> = {}): Subscription => ({
  id: 3, environment_id: 1, dashboard: 2, insight: null, target_type: 'email', target_value: 'a@example.com, "b" <b@example.com>',
  frequency: 'monthly', interval: 2, byweekday: ['wednesday'], bysetpos: 1, count: null, start_date: '2022-01-01T00:00:00Z',
  until_date: null, title: 'Ünïcode \u2028 title', deleted: false, next_delivery_date: '2022-02-02T00:00:00Z',
  created_by: 'u-ada', created_at: '2022-01-01T00:00:00.123456Z', updated_at: '2022-01-01T00:00:00Z',
  ...overrides,
} as Subscription)

const cases: Array<[string, Subscription]> = [
  ['a monthly subscription', subscription()],
  ['deleted, no title, a creator not found', subscription({ deleted: true, title: null, created_by: 'u-gone', frequency: 'weekly', byweekday: null, bysetpos: null })],
  ['a field missing from an older document', { ...subscription(), count: undefined } as unknown as Subscription],
]
const write = jsonWriter(SubscriptionResponse)

t.test('a subscription is written in the order of its shape, as JSON.stringify writes it, kept or not', async (t) => {
  const known = users()
  for (const [name, value] of cases) {
    const expected = JSON.stringify(subscriptionJson(value, known))
    t.equal(write(subscriptionJson(value, known)), expected, name)
    const frozen = deepFreeze(structuredClone(value))
    t.equal(write(subscriptionJson(frozen, known)), expected, `${name}, frozen`)
    t.equal(write(subscriptionJson(frozen, known)), expected, `${name}, frozen, again`)
  }
})

t.test('a kept subscription is shown anew when its creator changes', async (t) => {
  const frozen = deepFreeze(subscription())
  t.match(write(subscriptionJson(frozen, users())), '"first_name":"Ada"')
  t.match(write(subscriptionJson(frozen, users({ ...ada, first_name: 'Augusta' }))), '"first_name":"Augusta"')
  t.match(write(subscriptionJson(frozen, new Map())), '"created_by":null')
})

t.test('the paginated envelope is written as JSON.stringify writes it, links included', async (t) => {
  const request = { url: '/api/projects/1/subscriptions/?limit=2&offset=2', headers: {}, protocol: 'http', host: 'localhost:8000' } as unknown as FastifyRequest
  const writeList = jsonWriter(SubscriptionListResponse)
  const known = users()
  const results = [deepFreeze(subscription()), subscription({ id: 4, title: null })].map((s) => subscriptionJson(s, known))
  for (const [limit, offset, count] of [[2, 2, 5], [100, 0, 1], [2, 0, 0], [2, 4, 5]] as const) {
    const envelope = paginated(request, { limit, offset }, count, results)
    t.equal(writeList(envelope), JSON.stringify(envelope), `limit ${limit}, offset ${offset}, count ${count}`)
  }
})
