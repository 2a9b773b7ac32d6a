import t from 'tap'
import fc from 'fast-check'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setImmediate as turn } from 'node:timers/promises'
import type { Test } from 'tap'
import { EVENTS_CAPTURED } from '../../src/ingestion/captured-event.js'
import { normalisedOf } from '../../src/ingestion/captured-projection.js'
import { eventKey } from '../../src/events/record.js'
import { allProjectors } from '../../src/modules.js'
import { world } from '../support/world.js'
import { hostileBody, hostileId, hostileQuery, prepareBombs, type HostileBody } from './support/hostile.js'

// Runs per route group: enough to meet every kind of hostile body several times, within seconds.
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 120)

type World = Awaited<ReturnType<typeof world>>
type Answer = { status: number; body: string; type: string }

const send = async (w: World, method: string, url: string, body: HostileBody | null, headers: Record<string, string> = {}): Promise<Answer> => {
  // Requests answered without I/O chain through microtasks alone; a turn of the loop between them
  // keeps the delay measured below to what one request holds, not a run of them.
  await turn()
  const response = await w.app.inject({
    method: method as 'POST', url: body?.query ? `${url}${url.includes('?') ? '&' : '?'}${body.query}` : url,
    headers: {
      ...headers,
      ...(body?.contentType ? { 'content-type': body.contentType } : {}),
      ...(body?.contentEncoding ? { 'content-encoding': body.contentEncoding } : {}),
      ...body?.headers,
    },
    ...(body ? { payload: body.payload } : {}),
  })
  return { status: response.statusCode, body: response.body, type: String(response.headers['content-type'] ?? '') }
}

const parsed = (answer: Answer): unknown => {
  try {
    return JSON.parse(answer.body)
  } catch {
    return Symbol('not JSON')
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

/** PostHog capture's answers: `{status: 1}`, or `{status, code, error}` for a refusal. */
const captureShaped = (answer: Answer): boolean => {
  const body = parsed(answer)
  if (!isObject(body)) return false
  if (answer.status === 200) return body['status'] === 1
  return body['status'] === answer.status && typeof body['code'] === 'string' && typeof body['error'] === 'string'
}

/** DRF's error shape, PostHog's on every management refusal (and decide's). */
const drfShaped = (answer: Answer): boolean => {
  if (answer.status < 400) return answer.body === '' || typeof parsed(answer) === 'object'
  if (answer.status === 405 && answer.body === '') return true
  const body = parsed(answer)
  return isObject(body) && typeof body['type'] === 'string' && typeof body['code'] === 'string' && typeof body['detail'] === 'string' && 'attr' in body
}

/** posthog-node's v1 capture answers `{results: {}}`, and refuses as capture does. */
const v1Shaped = (answer: Answer): boolean => (answer.status === 200 ? isObject(parsed(answer)) && isObject((parsed(answer) as Record<string, unknown>)['results']) : captureShaped(answer))

/** Remote config's JavaScript, or a refusal in DRF's shape. */
const scriptShaped = (answer: Answer): boolean => (answer.status === 200 ? answer.type.startsWith('application/javascript') && answer.body.includes('_POSTHOG_REMOTE_CONFIG') : drfShaped(answer))

/** A flag's remote config is a bare 404 when there is none, as PostHog answers it. */
const remoteConfigShaped = (answer: Answer): boolean => (answer.status === 404 && answer.body === '') || drfShaped(answer)

const check = (t: Test, what: string, answer: Answer, shaped: (answer: Answer) => boolean): boolean => {
  if (answer.status >= 500 || !shaped(answer)) {
    t.fail(`${what} answered ${answer.status}: ${answer.body.slice(0, 300)}`)
    return false
  }
  return true
}

const statuses = new Map<string, Map<number, number>>()
const seen = (group: string, status: number): void => {
  const counts = statuses.get(group) ?? new Map<number, number>()
  counts.set(status, (counts.get(status) ?? 0) + 1)
  statuses.set(group, counts)
}

const event = (token: fc.Arbitrary<unknown>) => fc.record({
  api_key: token,
  event: fc.oneof(fc.constantFrom('$pageview', '$identify', '$create_alias', '$groupidentify', 'e'), fc.string({ maxLength: 10 }), fc.integer()),
  distinct_id: fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null), fc.constant('')),
  properties: fc.dictionary(fc.constantFrom('$set', '$set_once', '$groups', '$group_type', '$group_key', '$session_id', 'alias', '$anon_distinct_id', 'x'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
}, { requiredKeys: [] })

t.test('hostile input on every endpoint: never a 5xx, always PostHog\'s shape, the loop never held, every accepted event projected', async (t) => {
  // Hostile requests must reach the handlers, not the throttle of failed authentications.
  const w = await world(t, { app: { authFailureLimits: [] } })
  const token = w.installation.project_api_key
  const pid = w.installation.project_id
  const auth = w.bearer(w.key.value)
  const tokens = fc.oneof(fc.constant(token), fc.constant(token), fc.string({ maxLength: 10 }), fc.constant('phc_unknown'), fc.integer())
  const dashboard = (await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, headers: auth, payload: { name: 'target' } })).json() as { id: number }
  const flag = (await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/feature_flags/`, headers: auth, payload: { key: 'target', filters: { groups: [{ rollout_percentage: 50 }] } } })).json() as { id: number }

  prepareBombs()
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const rssBefore = process.memoryUsage().rss

  const publicRoutes: [string, string, fc.Arbitrary<Record<string, unknown>>][] = [
    ...['/capture/', '/e/', '/i/v0/e/', '/track/', '/engage/'].map((path) => ['capture', path, event(tokens)] as [string, string, fc.Arbitrary<Record<string, unknown>>]),
    ['capture', '/batch/', fc.record({ api_key: tokens, batch: fc.array(event(fc.constant(undefined)), { maxLength: 5 }), historical_migration: fc.boolean() }, { requiredKeys: [] })],
    ['capture', '/s/', fc.record({ api_key: tokens, event: fc.constant('$snapshot'), properties: fc.jsonValue({ maxDepth: 3 }) }, { requiredKeys: [] })],
  ]
  for (const [group, path, shape] of publicRoutes) {
    await fc.assert(fc.asyncProperty(hostileBody(shape), async (body) => {
      const answer = await send(w, 'POST', path, body)
      seen(`POST ${path}`, answer.status)
      return check(t, `POST ${path}`, answer, captureShaped)
    }), { numRuns: RUNS })
    void group
  }

  const v1Event = fc.record({
    event: fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), uuid: fc.oneof(fc.uuid(), fc.string({ maxLength: 10 })), distinct_id: fc.oneof(fc.string({ maxLength: 10 }), fc.constant(null)),
    timestamp: fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.string({ maxLength: 10 })), session_id: fc.jsonValue({ maxDepth: 1 }),
    options: fc.jsonValue({ maxDepth: 2 }), properties: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  }, { requiredKeys: [] })
  const v1Shape = fc.record({ created_at: fc.jsonValue({ maxDepth: 0 }), historical_migration: fc.jsonValue({ maxDepth: 0 }), batch: fc.array(v1Event, { maxLength: 4 }) }, { requiredKeys: [] })
  const v1Auth = fc.oneof(fc.constant(`Bearer ${token}`), fc.constant('Bearer phc_unknown'), fc.constant(''), fc.string({ maxLength: 20 }))
  await fc.assert(fc.asyncProperty(hostileBody(v1Shape), v1Auth, async (body, authorization) => {
    const answer = await send(w, 'POST', '/i/v1/analytics/events', body, { authorization })
    seen('POST /i/v1/analytics/events', answer.status)
    return check(t, 'POST /i/v1/analytics/events', answer, v1Shaped)
  }), { numRuns: RUNS })

  const decideShape = fc.record({
    token: tokens, distinct_id: fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null)),
    person_properties: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
    groups: fc.jsonValue({ maxDepth: 2 }), group_properties: fc.jsonValue({ maxDepth: 3 }),
  }, { requiredKeys: [] })
  for (const path of ['/decide/?v=3', '/decide/?v=4', '/flags/?v=2', '/decide/']) {
    await fc.assert(fc.asyncProperty(hostileBody(decideShape), async (body) => {
      const answer = await send(w, 'POST', path, body)
      seen(`POST ${path}`, answer.status)
      return check(t, `POST ${path}`, answer, drfShaped)
    }), { numRuns: RUNS })
  }

  const survey = (await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/surveys/`, headers: auth, payload: { name: 'target', type: 'popover', questions: [{ type: 'open', question: 'why?' }] } })).json() as { id: string }
  const shared = (await w.app.inject({ method: 'PATCH', url: `/api/projects/${pid}/dashboards/${dashboard.id}/sharing/`, headers: auth, payload: { enabled: true } })).json() as { access_token: string }
  const publicTokens = fc.oneof(fc.constant(token), fc.constant(shared.access_token), hostileId)
  const publicReads: [string, (id: string) => string, (answer: Answer) => boolean][] = [
    ['GET /api/surveys/', (id) => `/api/surveys/?token=${id}`, drfShaped],
    ['GET /array/{token}/config', (id) => `/array/${id}/config`, drfShaped],
    ['GET /array/{token}/config.js', (id) => `/array/${id}/config.js`, scriptShaped],
    ['GET /shared/{token}', (id) => `/shared/${id}`, drfShaped],
    ['GET /flags/definitions', (id) => `/flags/definitions?token=${id}`, drfShaped],
  ]
  await fc.assert(fc.asyncProperty(fc.constantFrom(...publicReads), publicTokens, hostileQuery, fc.boolean(), async ([name, url, shaped], id, query, authorized) => {
    const answer = await send(w, 'GET', `${url(id)}${url(id).includes('?') ? '&' : '?'}${query}`, null, authorized ? auth : {})
    seen(name, answer.status)
    return check(t, `${name} ${id} ${query}`, answer, shaped)
  }), { numRuns: RUNS * 2 })

  const subscription = (await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/subscriptions/`, headers: auth, payload: { dashboard: dashboard.id, target_type: 'email', target_value: 'a@example.com', frequency: 'daily', start_date: '2022-01-01T00:00:00Z' } })).json() as { id: number }
  const surveyShape = fc.record({
    name: fc.jsonValue(), description: fc.jsonValue(), type: fc.oneof(fc.constantFrom('popover', 'api', 'widget', 'x'), fc.jsonValue()), questions: fc.jsonValue({ maxDepth: 4 }),
    appearance: fc.jsonValue({ maxDepth: 3 }), conditions: fc.jsonValue({ maxDepth: 3 }), targeting_flag_filters: fc.jsonValue({ maxDepth: 5 }), linked_flag_id: fc.jsonValue(),
    start_date: fc.jsonValue(), end_date: fc.jsonValue(), archived: fc.jsonValue(), responses_limit: fc.jsonValue(), iteration_count: fc.jsonValue(),
  }, { requiredKeys: [] })
  // Mostly well-formed, so that requests get past validation into the engines, with any JSON now and then.
  const mostly = <T>(likely: fc.Arbitrary<T>, depth = 2) => fc.oneof({ weight: 4, arbitrary: likely }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: depth }) })
  const seriesNode = fc.record({
    kind: mostly(fc.constantFrom('EventsNode', 'ActionsNode')), event: mostly(fc.constantFrom('$pageview', 'e', null, 'toString')),
    math: mostly(fc.constantFrom('total', 'dau', 'weekly_active', 'unique_session', 'sum', 'p90', 'unique_group')), math_property: mostly(fc.constantFrom('plan', '$session_duration', '__proto__')),
  }, { requiredKeys: ['kind'] })
  const propertyFilter = fc.record({ key: mostly(fc.constantFrom('plan', 'toString', '$browser')), type: mostly(fc.constantFrom('event', 'person', 'session', 'group', 'hogql', 'element')), operator: mostly(fc.constantFrom('exact', 'is_set', 'regex', 'gt', 'is_date_after', 'between')), value: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] })
  const insightQuery = fc.record({
    kind: mostly(fc.constantFrom('TrendsQuery', 'FunnelsQuery', 'RetentionQuery', 'StickinessQuery', 'LifecycleQuery', 'EventsQuery', 'HogQLQuery', 'InsightActorsQuery')),
    series: mostly(fc.array(seriesNode, { maxLength: 3 }), 4), dateRange: mostly(fc.record({ date_from: fc.constantFrom('-7d', 'all', '-1dStart', 'mStart', '2024-01-01'), date_to: fc.constantFrom(null, '-1d', 'dEnd') }, { requiredKeys: [] })),
    interval: mostly(fc.constantFrom('hour', 'day', 'week', 'month')), properties: mostly(fc.array(propertyFilter, { maxLength: 2 }), 4),
    breakdownFilter: mostly(fc.record({ breakdown: fc.constantFrom('plan', '__proto__', '$browser'), breakdown_type: fc.constantFrom('event', 'person', 'session', 'hogql') }, { requiredKeys: [] }), 3),
    compareFilter: mostly(fc.record({ compare: fc.boolean(), compare_to: fc.constantFrom('-1w', '-1m', 'x') }, { requiredKeys: [] })),
    select: mostly(fc.array(fc.constantFrom('*', 'event', 'count()', 'properties.plan', 'properties.toString', 'timestamp'), { maxLength: 3 })), source: fc.jsonValue({ maxDepth: 4 }),
  }, { requiredKeys: ['kind'] })
  const writes: [string, string, fc.Arbitrary<Record<string, unknown>>][] = [
    ['POST', `/api/projects/${pid}/surveys/`, surveyShape],
    ['PATCH', `/api/projects/${pid}/surveys/${survey.id}/`, surveyShape],
    ['PATCH', `/api/projects/${pid}/dashboards/${dashboard.id}/move_tile/`, fc.record({ tile: fc.jsonValue({ maxDepth: 3 }), toDashboard: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', `/api/projects/${pid}/subscriptions/${subscription.id}/test-delivery/`, fc.record({ x: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', `/api/projects/${pid}/dashboards/`, fc.record({ name: fc.jsonValue(), description: fc.jsonValue(), tags: fc.jsonValue(), filters: fc.jsonValue(), use_template: fc.jsonValue(), use_dashboard: fc.jsonValue(), restriction_level: fc.jsonValue() }, { requiredKeys: [] })],
    ['PATCH', `/api/projects/${pid}/dashboards/${dashboard.id}/`, fc.record({ name: fc.jsonValue(), tiles: fc.jsonValue({ maxDepth: 4 }), deleted: fc.jsonValue(), pinned: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', `/api/projects/${pid}/dashboards/${dashboard.id}/collaborators/`, fc.record({ user_uuid: fc.jsonValue(), level: fc.jsonValue() }, { requiredKeys: [] })],
    ['PATCH', `/api/projects/${pid}/dashboards/${dashboard.id}/sharing/`, fc.record({ enabled: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', `/api/projects/${pid}/subscriptions/`, fc.record({ dashboard: fc.oneof(fc.constant(dashboard.id), fc.jsonValue()), target_type: fc.constantFrom('email', 'slack', 'webhook', 'x'), target_value: fc.jsonValue(), frequency: fc.constantFrom('daily', 'weekly', 'monthly', 'yearly', 'x'), interval: fc.jsonValue(), byweekday: fc.jsonValue(), bysetpos: fc.jsonValue(), start_date: fc.jsonValue(), count: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', `/api/projects/${pid}/feature_flags/`, fc.record({ key: fc.jsonValue(), filters: fc.jsonValue({ maxDepth: 5 }), active: fc.jsonValue(), name: fc.jsonValue() }, { requiredKeys: [] })],
    ['PATCH', `/api/projects/${pid}/feature_flags/${flag.id}/`, fc.record({ filters: fc.jsonValue({ maxDepth: 5 }), active: fc.jsonValue(), deleted: fc.jsonValue() }, { requiredKeys: [] })],
    ['PATCH', `/api/environments/${w.installation.environment_id}/`, fc.record({ name: fc.jsonValue(), timezone: fc.jsonValue(), test_account_filters: fc.jsonValue(), anonymize_ips: fc.jsonValue(), session_recording_opt_in: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', `/api/projects/${pid}/environments/`, fc.record({ name: fc.jsonValue(), timezone: fc.jsonValue(), primary_dashboard: fc.jsonValue() }, { requiredKeys: [] })],
    ['PATCH', '/api/organizations/@current/', fc.record({ name: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', '/api/organizations/@current/invites/', fc.record({ target_email: fc.jsonValue(), level: fc.jsonValue(), first_name: fc.jsonValue(), message: fc.jsonValue() }, { requiredKeys: [] })],
    ['PATCH', '/api/organizations/@current/members/00000000-0000-0000-0000-000000000000/', fc.record({ level: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', `/api/projects/${pid}/query/`, fc.record({ query: insightQuery, refresh: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', `/api/projects/${pid}/insights/`, fc.record({ name: fc.jsonValue(), query: fc.oneof(insightQuery.map((source) => ({ kind: 'InsightVizNode', source })), fc.jsonValue()), dashboards: fc.jsonValue() }, { requiredKeys: [] })],
    ['POST', '/api/personal_api_keys/', fc.record({ label: fc.jsonValue(), scopes: fc.jsonValue(), scoped_teams: fc.jsonValue(), scoped_organizations: fc.jsonValue() }, { requiredKeys: [] })],
  ]
  for (const [method, path, shape] of writes) {
    await fc.assert(fc.asyncProperty(hostileBody(shape), async (body) => {
      const answer = await send(w, method, path, body, auth)
      seen(`${method} ${path.replace(/\/\d+\//g, '/{id}/')}`, answer.status)
      return check(t, `${method} ${path}`, answer, drfShaped)
    }), { numRuns: RUNS })
  }

  const reads = ['surveys/{id}/', 'surveys/', 'surveys/{id}/activity/', 'dashboards/', 'subscriptions/{id}/', 'subscriptions/', 'feature_flags/{id}/', 'feature_flags/', 'persons/', 'persons/{id}/',
    'groups/', 'events/', 'sessions/values/', 'sessions/property_definitions/', 'dashboards/{id}/activity/', 'dashboards/{id}/sharing/', 'dashboards/{id}/collaborators/']
  await fc.assert(fc.asyncProperty(fc.constantFrom(...reads), hostileId, hostileId, hostileQuery, fc.constantFrom('GET', 'DELETE', 'PUT'), async (route, project, id, query, method) => {
    const url = `/api/projects/${project}/${route.replace('{id}', id)}?${query}`
    const answer = await send(w, method, url, null, auth)
    seen(`${method} reads`, answer.status)
    return check(t, `${method} ${url}`, answer, drfShaped)
  }), { numRuns: RUNS * 4 })
  await fc.assert(fc.asyncProperty(hostileId, hostileQuery, async (key, query) => {
    const url = `/api/projects/${pid}/feature_flags/${key}/remote_config?${query}`
    const answer = await send(w, 'GET', url, null, auth)
    seen('GET remote_config', answer.status)
    return check(t, `GET ${url}`, answer, remoteConfigShaped)
  }), { numRuns: RUNS })
  const deletions = ['/api/personal_api_keys/{id}/', '/api/organizations/@current/invites/{id}/', '/api/organizations/@current/members/{id}/', '/api/organizations/{id}/invites/{id}/']
  await fc.assert(fc.asyncProperty(fc.constantFrom(...deletions), hostileId, hostileQuery, async (route, id, query) => {
    const url = `${route.replaceAll('{id}', id)}?${query}`
    const answer = await send(w, 'DELETE', url, null, auth)
    seen(`DELETE ${route}`, answer.status)
    return check(t, `DELETE ${url}`, answer, drfShaped)
  }), { numRuns: RUNS })
  await fc.assert(fc.asyncProperty(hostileBody(fc.record({ x: fc.jsonValue() }, { requiredKeys: [] })), hostileId, async (body, environment) => {
    const url = `/api/environments/${environment}/reset_token/`
    const answer = await send(w, 'PATCH', url, body, auth)
    seen('PATCH reset_token', answer.status)
    return check(t, `PATCH ${url}`, answer, drfShaped)
  }), { numRuns: RUNS })
  await fc.assert(fc.asyncProperty(hostileQuery, fc.constantFrom('/capture/', '/e/', '/decide/', '/flags/', '/api/feature_flag/local_evaluation'), async (query, path) => {
    const answer = await send(w, 'GET', `${path}?${query}`, null, path.startsWith('/api/') ? auth : {})
    seen(`GET ${path}`, answer.status)
    return check(t, `GET ${path}?${query}`, answer, path.startsWith('/decide') || path.startsWith('/flags') || path.startsWith('/api/') ? drfShaped : captureShaped)
  }), { numRuns: RUNS })

  delay.disable()
  const heldMs = delay.max / 1e6
  const grownMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20
  t.ok(heldMs < 1000, `the event loop was never held for long (longest delay ${heldMs.toFixed(0)} ms)`)
  t.ok(grownMiB < 512, `memory stays bounded (grew ${grownMiB.toFixed(0)} MiB)`)

  const head = (await w.log.headPosition())!
  t.ok(await w.models.waitFor(head, allProjectors.flatMap((p) => [...p.collections]), 30_000), 'every projection reached the head')
  const health = await w.app.inject({ method: 'GET', url: '/_health' })
  t.equal(health.statusCode, 200, `health: ${health.body.slice(0, 300)}`)
  let accepted = 0
  let missing = 0
  for await (const logged of w.log.readAll()) {
    if (logged.type !== EVENTS_CAPTURED) continue
    const { environmentId, events } = normalisedOf(logged)
    for (const one of events) {
      accepted++
      if (!(await w.models.get('events', eventKey(environmentId, one.uuid)))) missing++
    }
  }
  t.ok(accepted > 0, `events were accepted (${accepted})`)
  t.equal(missing, 0, 'every accepted event is in the events read model')
  t.comment(`statuses seen: ${JSON.stringify(Object.fromEntries([...statuses].map(([k, v]) => [k, Object.fromEntries(v)])))}`)
})
