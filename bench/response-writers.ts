/**
 * `taskset -c 0 node dist/bench/response-writers.js`: writing the bench's hot read answers (a
 * 10-tile dashboard, a person by distinct id, 25 subscriptions, `/decide?v=3` with 50 flags) with
 * the writer compiled from each response schema (`jsonWriter`, kept texts of frozen parts), with
 * fast-json-stringify compiled from the same schema, and with `JSON.stringify`, in ns per answer.
 * Each answer is measured as a socket write takes it (`Buffer.byteLength` flattens it); every way
 * is checked to write the same bytes first; the ways alternate round by round, medians of 15 rounds.
 */
import type { FastifyRequest } from 'fastify'
import fastJson from 'fast-json-stringify'
import { z } from 'zod'
import { basicUser } from '../src/accounts/users.js'
import type { Tile } from '../src/dashboards/events.js'
import { DashboardDetailResponse } from '../src/dashboards/schemas.js'
import { dashboardDetail } from '../src/dashboards/serialize.js'
import type { Dashboard } from '../src/dashboards/state.js'
import { decideConfig } from '../src/decide/decide-config.js'
import { decideBody } from '../src/decide/response-json.js'
import { reason, type FlagEvaluation } from '../src/decide/results.js'
import { jsonWriter } from '../src/http/json-writer.js'
import { paginated } from '../src/http/pagination.js'
import { deepFreeze } from '../src/kernel/deep-freeze.js'
import { PersonListResponse, personShapeOf } from '../src/persons/person-shape.js'
import type { PersonRecord } from '../src/persons/records.js'
import { SubscriptionListResponse } from '../src/subscriptions/schemas.js'
import { subscriptionJson } from '../src/subscriptions/serialize.js'
import type { Subscription } from '../src/subscriptions/state.js'

const ada = deepFreeze({
  id: 1, uuid: 'u-ada', distinct_id: 'd-ada', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com',
  is_email_verified: false, hedgehog_config: null, role_at_organization: null,
})
const users = new Map([['u-ada', deepFreeze(basicUser(ada))]])
const request = (url: string) => ({ url, headers: {}, protocol: 'http', host: 'localhost:8000' }) as unknown as FastifyRequest

const tile = (id: number): Tile => ({
  id, text: { id, body: `card ${id}`, created_by: 'u-ada', last_modified_at: '2024-01-02T03:04:05.678Z', last_modified_by: 'u-ada' },
  color: null, layouts: {}, show_description: null, transparent_background: null, deleted: false,
})
const dashboard: Dashboard = deepFreeze({
  id: 7, environment_id: 3, name: 'bench', description: 'a dashboard to read', pinned: false, restriction_level: 21, filters: {}, variables: {},
  tags: [], creation_mode: 'default', tiles: Array.from({ length: 10 }, (_, i) => tile(i + 1)), collaborators: [],
  sharing: { access_token: 'tok', enabled: false, created_at: null }, access_token: 'tok', deleted: false, created_by: 'u-ada',
  created_at: '2024-01-01T00:00:00.123456Z', updated_at: '2024-01-01T00:00:00Z',
})
const actor = { uuid: 'u-ada', level: 8 }

const person: PersonRecord = deepFreeze({
  id: 1, uuid: 'af061de7-58aa-50ee-8f2c-8010440c77ef', environment_id: 1, distinct_ids: ['ada'], first_page: 0, last_page: 0, is_identified: false,
  properties: { email: 'ada@example.com', plan: 'pro', seats: 12, $creator_event_uuid: '01a21c1f-53e5-7443-a9e5-3a08cef71711' }, created_at: '2024-01-01T00:00:00.5Z', version: 1,
})
const noPages = deepFreeze([])

const subscriptions = Array.from({ length: 25 }, (_, i): Subscription => deepFreeze({
  id: i + 1, environment_id: 1, dashboard: 7, insight: null, target_type: 'email', target_value: `u${i}@example.com`, frequency: 'weekly',
  interval: 1, byweekday: null, bysetpos: null, count: null, start_date: '2022-01-01T00:00:00Z', until_date: null, title: null, deleted: false,
  next_delivery_date: '2027-01-06T00:00:00Z', created_by: 'u-ada', created_at: '2022-01-01T00:00:00.123456Z', updated_at: '2022-01-01T00:00:00Z',
}))

const flags = Array.from({ length: 50 }, (_, i): FlagEvaluation => {
  const value = (i * 7) % 3 === 0 ? false : i % 3 === 0 ? 'test' : true
  return { key: `flag-${i}`, id: i + 1, version: 1, value, payload: value === false ? null : `{"n": ${i}}`, reason: reason('condition_match', 0), failed: false }
})
const config = decideConfig()
/** The v3 body as an object, which fast-json-stringify and JSON.stringify need (`decideBody` writes text). */
const v3Object = () => {
  const featureFlags = Object.create(null) as Record<string, boolean | string>
  const featureFlagPayloads = Object.create(null) as Record<string, string>
  for (const flag of flags) {
    featureFlags[flag.key] = flag.value
    if (flag.value !== false && flag.payload !== null) featureFlagPayloads[flag.key] = flag.payload
  }
  return { ...config, featureFlags, featureFlagPayloads, errorsWhileComputingFlags: false, requestId: 'r' }
}
const V3 = z.object({
  config: z.object({ enable_collect_everything: z.boolean() }), toolbarParams: z.object({}), isAuthenticated: z.boolean(),
  supportedCompression: z.array(z.string()), sessionRecording: z.unknown(), captureDeadClicks: z.boolean(), capturePerformance: z.unknown(),
  autocapture_opt_out: z.boolean(), autocaptureExceptions: z.unknown(), elementsChainAsString: z.boolean(), surveys: z.boolean(), heatmaps: z.boolean(),
  flagsPersistenceDefault: z.boolean(), defaultIdentifiedOnly: z.boolean(), siteApps: z.array(z.unknown()),
  featureFlags: z.record(z.string(), z.union([z.boolean(), z.string()])), featureFlagPayloads: z.record(z.string(), z.string()),
  errorsWhileComputingFlags: z.boolean(), requestId: z.string(),
})

type Answer = () => unknown
/** Each answer: how its shape is built for a request, the schema it is written by, and Hedgelog's own way when it is not the schema writer. */
const answers: Record<string, { shape: Answer; schema: z.ZodType; own?: () => string }> = {
  'dashboard, 10 tiles': { shape: () => dashboardDetail(dashboard, actor, users), schema: DashboardDetailResponse },
  'person by distinct id': { shape: () => paginated(request('/persons/?distinct_id=ada'), { limit: 100, offset: 0 }, 1, [personShapeOf(person, noPages)]), schema: PersonListResponse },
  '25 subscriptions': { shape: () => paginated(request('/subscriptions/?limit=25'), { limit: 25, offset: 0 }, 25, subscriptions.map((s) => subscriptionJson(s, users))), schema: SubscriptionListResponse },
  '/decide?v=3, 50 flags': { shape: v3Object, schema: V3, own: () => decideBody({ format: 'v3', includeConfig: true }, { flags, errorsWhileComputingFlags: false }, { config, requestId: 'r' }) },
}

const nsPerAnswer = (write: () => string): number => {
  let bytes = 0
  const start = process.hrtime.bigint()
  for (let i = 0; i < 5000; i++) bytes += Buffer.byteLength(write())
  if (bytes === 0) throw new Error('nothing written')
  return Number(process.hrtime.bigint() - start) / 5000
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!

for (const [name, { shape, schema, own }] of Object.entries(answers)) {
  const fjs = fastJson(z.toJSONSchema(schema, { unrepresentable: 'any' }) as object) as (value: unknown) => string
  const schemaWriter = jsonWriter(schema) as (value: unknown) => string
  const ways: Record<string, () => string> = {
    hedgelog: own ?? (() => schemaWriter(shape())),
    'fast-json-stringify': () => fjs(shape()),
    'JSON.stringify': () => JSON.stringify(shape()),
  }
  const expected = JSON.stringify(shape())
  for (const [way, write] of Object.entries(ways)) if (write() !== expected) throw new Error(`${name}: ${way} writes other bytes`)
  const rounds = Object.fromEntries(Object.keys(ways).map((way) => [way, [] as number[]]))
  for (let round = 0; round < 16; round++) for (const [way, write] of Object.entries(ways)) if (round > 0) rounds[way]!.push(nsPerAnswer(write)); else nsPerAnswer(write)
  const ours = median(rounds['hedgelog']!)
  const others = Object.entries(rounds).filter(([way]) => way !== 'hedgelog').map(([way, times]) => `${way} ${median(times).toFixed(0)} (${(median(times) / ours).toFixed(1)} ×)`)
  process.stdout.write(`${name}: ns per answer, hedgelog ${ours.toFixed(0)}, ${others.join(', ')}\n`)
}
