import t from 'tap'
import { basicUser } from '../../src/accounts/users.js'
import { basicUserText } from '../../src/accounts/user-lookup.js'
import { paginated, paginatedText } from '../../src/http/pagination.js'
import { deepFreeze } from '../../src/kernel/deep-freeze.js'
import { subscriptionJson } from '../../src/subscriptions/serialize.js'
import type { Subscription } from '../../src/subscriptions/state.js'
import { subscriptionText } from '../../src/subscriptions/subscription-text.js'
import type { FastifyRequest } from 'fastify'

const ada = deepFreeze({ id: 1, uuid: 'u-ada', distinct_id: 'd', first_name: 'Ada', last_name: '', email: 'ada@example.com', is_email_verified: false, hedgehog_config: null, role_at_organization: null })

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

t.test('a subscription\'s text is JSON.stringify of its shape, byte for byte, frozen or not', async (t) => {
  const shapes = new Map([[ada.uuid, basicUser(ada)]])
  const texts = new Map([[ada.uuid, basicUserText(ada)]])
  for (const [name, value] of cases) {
    const expected = JSON.stringify(subscriptionJson(value, shapes))
    t.equal(subscriptionText(value, texts.get(value.created_by) ?? null), expected, name)
    const frozen = deepFreeze(structuredClone(value))
    t.equal(subscriptionText(frozen, texts.get(value.created_by) ?? null), expected, `${name}, frozen`)
    t.equal(subscriptionText(frozen, texts.get(value.created_by) ?? null), expected, `${name}, frozen, again`)
  }
})

t.test('a kept subscription is written again when its creator\'s text changes', async (t) => {
  const frozen = deepFreeze(subscription())
  const renamed = basicUserText(deepFreeze({ ...ada, first_name: 'Augusta' }))
  t.match(subscriptionText(frozen, basicUserText(ada)), '"first_name":"Ada"')
  t.match(subscriptionText(frozen, renamed), '"first_name":"Augusta"')
  t.match(subscriptionText(frozen, null), '"created_by":null')
})

t.test('the paginated envelope as text is JSON.stringify of the envelope', async (t) => {
  const request = { url: '/api/projects/1/subscriptions/?limit=2&offset=2', headers: {}, protocol: 'http', host: 'localhost:8000' } as unknown as FastifyRequest
  for (const [limit, offset, count] of [[2, 2, 5], [100, 0, 1], [2, 0, 0], [2, 4, 5]] as const) {
    const results = [{ a: 1 }, { b: 'two' }]
    t.equal(
      paginatedText(request, { limit, offset }, count, results.map((r) => JSON.stringify(r))),
      JSON.stringify(paginated(request, { limit, offset }, count, results)),
      `limit ${limit}, offset ${offset}, count ${count}`,
    )
  }
})
