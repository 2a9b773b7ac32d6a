import t from 'tap'
import { context } from '../../support/world.js'
import { insightsWorld as setup } from './support/insights-world.js'
import { handleCommand } from '../../../src/kernel/handle-command.js'
import { insightDecider } from '../../../src/insights/decider.js'
import { insightStream } from '../../../src/insights/events.js'

const TRENDS = {
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup', math: 'total' }], interval: 'week', dateRange: { date_from: '-90d' } },
}

t.test('a create answers 201 with the full shape: the query as given, no results computed', async (t) => {
  const { api, base, installation } = await setup(t)
  const created = await api.post(base, { name: 'Signups', query: TRENDS, tags: ['Growth', ' growth '] })
  t.equal(created.status, 201, JSON.stringify(created.body))
  t.match(created.body, {
    id: Number, name: 'Signups', derived_name: null, description: null, filters: {}, query: TRENDS, order: null, deleted: false,
    dashboards: [], dashboard_tiles: [], result: null, last_refresh: null, is_cached: false, saved: false, favorited: false,
    tags: ['growth'], is_sample: false, effective_restriction_level: 21, effective_privilege_level: 37, user_access_level: 'editor',
    timezone: 'UTC', query_status: null, hasMore: null, columns: null, types: null, resolved_date_range: null,
    cache_target_age: null, next_allowed_client_refresh: null, alerts: [], last_viewed_at: null,
    created_by: { uuid: installation.user_uuid }, last_modified_by: { uuid: installation.user_uuid },
  })
  t.match(created.body.short_id, /^[A-Za-z0-9]{8}$/)
  t.match(created.body.filters_hash, /^cache_[0-9a-f]{32}$/)
  t.match(created.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/)
  const fetched = await api.get(`${base}${created.body.id}/`)
  t.equal(fetched.status, 200)
  t.same(fetched.body, created.body, 'the response already reflected the write')
})

t.test('an insight is found by its id or its short id, under both prefixes', async (t) => {
  const { api, base, installation } = await setup(t)
  const { body } = await api.post(base, { name: 'x', query: TRENDS })
  t.equal((await api.get(`${base}${body.short_id}/`)).body.id, body.id)
  t.equal((await api.get(`/api/projects/${installation.project_id}/insights/${body.id}`)).body.id, body.id)
  t.equal((await api.get(`${base}99999/`)).status, 404)
  t.same((await api.get(`${base}nope!/`)).body, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })
})

t.test('a numeric key is tried as an id first, then as a short id', async (t) => {
  const { api, base, log, models, installation } = await setup(t)
  const { body } = await api.post(base, { name: 'by id' })
  // Short ids of digits only, as PostHog's random ones now and then are.
  const write = async (insightId: number, shortId: string) => {
    const data = {
      insightId, environmentId: installation.environment_id, shortId, accessToken: `token-${insightId}`,
      name: `short ${shortId}`, derived_name: null, description: null, query: null, filters: {}, order: null, tags: [], favorited: false, saved: false,
      createdBy: installation.user_uuid, at: new Date().toISOString(),
    }
    const written = await handleCommand(log, insightDecider, insightStream(insightId), {
      type: 'CreateInsight', data, dashboards: { changeId: `c${insightId}`, added: [], removed: [] }, deleted: false,
    }, context(installation.user_uuid))
    await models.settled(written.position, 'insights', String(insightId))
  }
  await write(900, String(body.id).padStart(8, '0'))
  await write(901, '87654321')
  t.equal((await api.get(`${base}${String(body.id).padStart(8, '0')}/`)).body.name, 'by id', 'an id that exists wins')
  t.equal((await api.get(`${base}87654321/`)).body.name, 'short 87654321', 'no insight has that id, so the short id is looked up')
})

t.test('a filter-only insight shows legacy filters, trends by default', async (t) => {
  const { api, base } = await setup(t)
  const bare = await api.post(base, { name: 'bare' })
  t.same(bare.body.filters, { insight: 'TRENDS' })
  t.equal(bare.body.query, null)
  const funnel = await api.post(base, { filters: { insight: 'FUNNELS', events: [] } })
  t.same(funnel.body.filters, { insight: 'FUNNELS', events: [] })
})

t.test('DELETE is refused with a bare 405 and the insight stays', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { name: 'kept' })
  const refused = await api.delete(`${base}${body.id}/`)
  t.equal(refused.status, 405)
  t.equal(refused.raw, '')
  t.equal((await api.get(`${base}${body.id}/`)).status, 200)
})

t.test('PATCH changes fields, sets saved unless sent, and moves last_modified only on a material change', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { name: 'first', query: TRENDS })
  await new Promise((resolve) => setTimeout(resolve, 5))
  const favourite = await api.patch(`${base}${body.id}/`, { favorited: true })
  t.equal(favourite.status, 200)
  t.equal(favourite.body.favorited, true)
  t.equal(favourite.body.saved, true, 'a PATCH that does not send saved saves')
  t.equal(favourite.body.last_modified_at, body.last_modified_at, 'favouriting is no material change')
  t.not(favourite.body.updated_at, body.updated_at)
  const unsaved = await api.patch(`${base}${body.id}/`, { saved: false })
  t.equal(unsaved.body.saved, false)
  await new Promise((resolve) => setTimeout(resolve, 5))
  const renamed = await api.patch(`${base}${body.id}/`, { name: 'second', description: 'about it', tags: ['b', 'A'] })
  t.match(renamed.body, { name: 'second', description: 'about it', tags: ['a', 'b'] })
  t.not(renamed.body.last_modified_at, body.last_modified_at, 'a rename is')
  const sameName = await api.patch(`${base}${body.id}/`, { name: 'second' })
  t.equal(sameName.body.last_modified_at, renamed.body.last_modified_at, 'the same name again changes nothing')
  const requeried = await api.patch(`${base}${body.id}/`, { query: { kind: 'DataTableNode', source: { kind: 'EventsQuery', select: ['*'] } } })
  t.equal(requeried.body.query.kind, 'DataTableNode')
  t.not(requeried.body.last_modified_at, renamed.body.last_modified_at, 'so is a new query')
})

t.test('a soft delete hides the insight; PATCH deleted=false restores it', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { name: 'gone soon' })
  const deleted = await api.patch(`${base}${body.id}/`, { deleted: true })
  t.equal(deleted.status, 200)
  t.equal(deleted.body.deleted, true)
  t.equal((await api.get(`${base}${body.id}/`)).status, 404)
  t.equal((await api.get(base)).body.count, 0)
  t.equal((await api.patch(`${base}${body.id}/`, { name: 'still gone' })).status, 404, 'only a restore reaches a deleted insight')
  const restored = await api.patch(`${base}${body.id}/`, { deleted: false })
  t.equal(restored.status, 200)
  t.equal(restored.body.deleted, false)
  t.equal((await api.get(`${base}${body.id}/`)).status, 200)
})

t.test('an insight created deleted is stored, and hidden', async (t) => {
  const { api, base } = await setup(t)
  const created = await api.post(base, { name: 'born deleted', deleted: true })
  t.equal(created.status, 201)
  t.equal(created.body.deleted, true)
  t.equal((await api.get(`${base}${created.body.id}/`)).status, 404)
})

t.test('another environment\'s insights are not found', async (t) => {
  const { api, base, installation } = await setup(t)
  const { body } = await api.post(base, { name: 'mine' })
  const environment = await api.post(`/api/projects/${installation.project_id}/environments/`, { name: 'Other' })
  t.equal(environment.status, 201)
  const other = `/api/environments/${environment.body.id}/insights/`
  t.equal((await api.get(`${other}${body.id}/`)).status, 404)
  t.equal((await api.get(`${other}${body.short_id}/`)).status, 404)
  t.equal((await api.get(other)).body.count, 0)
})
