import { ENVIRONMENT_PREFIXES } from '../../../src/http/environment-scope.js'
import type { Caller } from '../../support/tenants.js'
import type { Seeded } from './fixtures.js'

/** One organization's ids, with one environment's resources. */
export interface Tenant extends Seeded {
  readonly org: string
  readonly project: number
  /** A member at level 1 whom admins may edit. */
  readonly colleague: string
  /** Users each caller adds to and removes from the restricted dashboard's collaborators. */
  readonly collaborators: Record<Caller, string>
  /** The owner's key without scopes. */
  readonly ownerKey: string
}

/** Where a request points: the organization and environment in its path, and the resources it names. */
export interface Target {
  readonly path: Tenant
  readonly item: Tenant
}

/** Things made afresh for requests that use them up. */
export interface Fresh {
  member(tenant: Tenant): Promise<string>
  invite(tenant: Tenant): Promise<string>
  key(tenant: Tenant): Promise<string>
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
export interface Outgoing { readonly url: string; readonly body?: unknown }

export interface RouteCase {
  /** The method and path exactly as the app registers them. */
  readonly route: string
  readonly method: Method
  readonly request: (target: Target, caller: Caller, fresh: Fresh) => Outgoing | Promise<Outgoing>
  /** The status for each caller on organization A's own ids; `foreign` is B's owner. */
  readonly expect: Record<Caller, number>
  /** The status for another tenant's resource id under one's own path; none when the route names no resource. */
  readonly crossed?: number
  /** The answer is about the caller, whatever ids it carries: no walk with another tenant's ids. */
  readonly global?: true
  /** Only keys without scopes may call it, so it is walked with those. */
  readonly legacy?: true
  /** Under an environment: another environment of the same organization is as foreign as another organization. */
  readonly environment?: true
}

const levels = (owner: number, admin: number, member: number, foreign: number) => ({ owner, admin, member, foreign })
const ALL = (status: number) => levels(status, status, status, status)
const READ = levels(200, 200, 200, 403)
const CREATE = levels(201, 201, 201, 403)
const REFUSED = levels(405, 405, 405, 403)

const one = (method: Method, pattern: string, request: RouteCase['request'], expect: Record<Caller, number>, more: Partial<RouteCase> = {}): RouteCase =>
  ({ route: `${method} ${pattern}`, method, request, expect, ...more })

type ScopedRequest = (target: Target, caller: Caller, fresh: Fresh) => { tail: string; body?: unknown } | Promise<{ tail: string; body?: unknown }>

/** A route of an environment-scoped plugin under one of the prefixes it is served at. */
const scopedAt = (prefix: string, method: Method, suffix: string, request: ScopedRequest, expect: Record<Caller, number>, more: Partial<RouteCase> = {}): RouteCase =>
  one(method, `${prefix}${suffix}`, async (target, caller, fresh) => {
    const { tail, body } = await request(target, caller, fresh)
    return { url: `${prefix.replace(':project_id', String(target.path.env))}${tail}`, body }
  }, expect, { environment: true, ...more })

/** A route of an environment-scoped plugin, once under each prefix. */
const scoped = (method: Method, suffix: string, request: ScopedRequest, expect: Record<Caller, number>, more: Partial<RouteCase> = {}): RouteCase[] =>
  ENVIRONMENT_PREFIXES.map((prefix) => scopedAt(prefix, method, suffix, request, expect, more))

/** Collaborators are added and then removed again under each prefix, so each prefix finds them absent at first. */
const collaborators = ENVIRONMENT_PREFIXES.flatMap((prefix) => [
  scopedAt(prefix, 'POST', '/dashboards/:dashboard_id/collaborators/', ({ item }, caller) => ({
    tail: `/dashboards/${item.restricted}/collaborators/`, body: { user_uuid: item.collaborators[caller], level: 37 },
  }), levels(201, 201, 403, 403), { crossed: 404 }),
  scopedAt(prefix, 'DELETE', '/dashboards/:dashboard_id/collaborators/:user_uuid/', ({ item }, caller) => ({ tail: `/dashboards/${item.restricted}/collaborators/${item.collaborators[caller]}/` }),
    levels(204, 204, 403, 403), { crossed: 404 }),
])

const organization = ({ path }: Target) => `/api/organizations/${path.org}`
const unique = () => crypto.randomUUID().slice(0, 8)

/** Every tenant-scoped route the app serves under /api/, and how each caller must be answered. */
export const ROUTE_CASES: readonly RouteCase[] = [
  one('GET', '/api/users/@me/', () => ({ url: '/api/users/@me/' }), ALL(200), { global: true }),
  one('GET', '/api/personal_api_keys/', () => ({ url: '/api/personal_api_keys/' }), ALL(200), { global: true, legacy: true }),
  one('POST', '/api/personal_api_keys/', () => ({ url: '/api/personal_api_keys/', body: { label: 'another', scopes: ['*'] } }), ALL(201), { global: true, legacy: true }),
  one('GET', '/api/personal_api_keys/:id/', ({ item }) => ({ url: `/api/personal_api_keys/${item.ownerKey}/` }), levels(200, 404, 404, 404), { legacy: true, crossed: 404 }),
  one('DELETE', '/api/personal_api_keys/:id/', async ({ item }, _caller, fresh) => ({ url: `/api/personal_api_keys/${await fresh.key(item)}/` }), levels(204, 404, 404, 404), { legacy: true, crossed: 404 }),

  one('GET', '/api/organizations/', () => ({ url: '/api/organizations/' }), ALL(200), { global: true }),
  one('GET', '/api/organizations/:id/', (target) => ({ url: `${organization(target)}/` }), levels(200, 200, 200, 404)),
  one('PATCH', '/api/organizations/:id/', (target) => ({ url: `${organization(target)}/`, body: { name: 'Renamed' } }), levels(200, 200, 403, 404)),
  one('GET', '/api/organizations/:id/members/', (target) => ({ url: `${organization(target)}/members/` }), READ),
  one('PATCH', '/api/organizations/:id/members/:user_uuid/', (target) => ({ url: `${organization(target)}/members/${target.item.colleague}/`, body: { level: 1 } }),
    levels(200, 200, 403, 403), { crossed: 404 }),
  one('DELETE', '/api/organizations/:id/members/:user_uuid/', async (target, _caller, fresh) => ({ url: `${organization(target)}/members/${await fresh.member(target.item)}/` }),
    levels(204, 204, 403, 403), { crossed: 404 }),
  one('GET', '/api/organizations/:id/invites/', (target) => ({ url: `${organization(target)}/invites/` }), READ),
  one('POST', '/api/organizations/:id/invites/', (target) => ({ url: `${organization(target)}/invites/`, body: { target_email: `new-${unique()}@example.com` } }), CREATE),
  one('DELETE', '/api/organizations/:id/invites/:invite_id/', async (target, _caller, fresh) => ({ url: `${organization(target)}/invites/${await fresh.invite(target.item)}/` }),
    levels(204, 204, 204, 403), { crossed: 404 }),

  one('GET', '/api/projects/', () => ({ url: '/api/projects/' }), ALL(200), { global: true }),
  one('GET', '/api/projects/:project_id/', ({ path }) => ({ url: `/api/projects/${path.project}/` }), READ),
  one('GET', '/api/projects/:project_id/environments/', ({ path }) => ({ url: `/api/projects/${path.project}/environments/` }), READ),
  one('POST', '/api/projects/:project_id/environments/', ({ path }) => ({ url: `/api/projects/${path.project}/environments/`, body: { name: 'Extra' } }), levels(201, 201, 403, 404)),
  one('GET', '/api/projects/:project_id/environments/:environment_id/', ({ path, item }) => ({ url: `/api/projects/${path.project}/environments/${item.env}/` }), READ, { crossed: 404 }),
  one('PATCH', '/api/projects/:project_id/environments/:environment_id/', ({ path, item }) => ({ url: `/api/projects/${path.project}/environments/${item.env}/`, body: { name: 'Production' } }),
    READ, { crossed: 404 }),
  one('GET', '/api/environments/', () => ({ url: '/api/environments/' }), ALL(200), { global: true }),
  one('POST', '/api/environments/', () => ({ url: '/api/environments/', body: { name: 'Nowhere' } }), ALL(400), { global: true }),
  one('GET', '/api/environments/:project_id/', ({ path }) => ({ url: `/api/environments/${path.env}/` }), levels(200, 200, 200, 404)),
  one('PATCH', '/api/environments/:project_id/', ({ path }) => ({ url: `/api/environments/${path.env}/`, body: { name: 'Production' } }), levels(200, 200, 200, 404)),
  one('PATCH', '/api/environments/:project_id/reset_token/', ({ path }) => ({ url: `/api/environments/${path.env}/reset_token/` }), levels(200, 200, 403, 404)),

  ...scoped('GET', '/dashboards/', () => ({ tail: '/dashboards/' }), READ),
  ...scoped('POST', '/dashboards/', () => ({ tail: '/dashboards/', body: { name: 'New board' } }), CREATE),
  ...scoped('GET', '/dashboards/:id/', ({ item }) => ({ tail: `/dashboards/${item.dashboard}/` }), READ, { crossed: 404 }),
  ...scoped('PATCH', '/dashboards/:id/', ({ item }) => ({ tail: `/dashboards/${item.dashboard}/`, body: { description: 'changed' } }), READ, { crossed: 404 }),
  ...scoped('DELETE', '/dashboards/:id/', ({ item }) => ({ tail: `/dashboards/${item.dashboard}/` }), REFUSED, { crossed: 405 }),
  ...scoped('PATCH', '/dashboards/:id/move_tile/', ({ item }) => ({ tail: `/dashboards/${item.dashboard}/move_tile/`, body: { tile: { id: item.tile }, toDashboard: item.dashboard } }),
    READ, { crossed: 404, legacy: true }),
  ...scoped('GET', '/dashboards/:id/activity/', ({ item }) => ({ tail: `/dashboards/${item.dashboard}/activity/` }), READ, { crossed: 404 }),
  ...scoped('GET', '/dashboards/:dashboard_id/collaborators/', ({ item }) => ({ tail: `/dashboards/${item.restricted}/collaborators/` }), READ, { crossed: 404 }),
  ...collaborators,
  ...scoped('PATCH', '/dashboards/:dashboard_id/collaborators/:user_uuid/', ({ item }) => ({ tail: `/dashboards/${item.restricted}/collaborators/${item.colleague}/`, body: { level: 21 } }), REFUSED),
  ...scoped('PUT', '/dashboards/:dashboard_id/collaborators/:user_uuid/', ({ item }) => ({ tail: `/dashboards/${item.restricted}/collaborators/${item.colleague}/`, body: { level: 21 } }), REFUSED),
  ...scoped('GET', '/dashboards/:dashboard_id/sharing/', ({ item }) => ({ tail: `/dashboards/${item.dashboard}/sharing/` }), READ, { crossed: 404 }),
  ...scoped('PATCH', '/dashboards/:dashboard_id/sharing/', ({ item }) => ({ tail: `/dashboards/${item.dashboard}/sharing/`, body: { enabled: false } }), READ, { crossed: 404 }),

  ...scoped('GET', '/subscriptions/', () => ({ tail: '/subscriptions/' }), READ),
  ...scoped('POST', '/subscriptions/', ({ item }) => ({
    tail: '/subscriptions/', body: { dashboard: item.dashboard, target_type: 'email', target_value: 'new@example.com', frequency: 'weekly', start_date: '2022-01-01T00:00:00', title: 'New' },
  }), CREATE, { crossed: 400 }),
  ...scoped('GET', '/subscriptions/:id/', ({ item }) => ({ tail: `/subscriptions/${item.subscription}/` }), READ, { crossed: 404 }),
  ...scoped('PATCH', '/subscriptions/:id/', ({ item }) => ({ tail: `/subscriptions/${item.subscription}/`, body: { frequency: 'daily' } }), READ, { crossed: 404 }),
  ...scoped('DELETE', '/subscriptions/:id/', ({ item }) => ({ tail: `/subscriptions/${item.subscription}/` }), REFUSED, { crossed: 405 }),
  ...scoped('POST', '/subscriptions/:id/test-delivery/', ({ item }) => ({ tail: `/subscriptions/${item.subscription}/test-delivery/` }), READ, { crossed: 404 }),
  ...scoped('GET', '/subscriptions/:id/deliveries/', ({ item }) => ({ tail: `/subscriptions/${item.subscription}/deliveries/` }), READ, { crossed: 404 }),
  ...scoped('GET', '/subscriptions/:id/activity/', ({ item }) => ({ tail: `/subscriptions/${item.subscription}/activity/` }), READ, { crossed: 404 }),

  ...scoped('GET', '/feature_flags/', () => ({ tail: '/feature_flags/' }), READ),
  ...scoped('POST', '/feature_flags/', () => ({ tail: '/feature_flags/', body: { key: `new-${unique()}`, filters: { groups: [{ rollout_percentage: 50 }] } } }), CREATE),
  ...scoped('GET', '/feature_flags/:id/', ({ item }) => ({ tail: `/feature_flags/${item.flag}/` }), READ, { crossed: 404 }),
  ...scoped('PATCH', '/feature_flags/:id/', ({ item }) => ({ tail: `/feature_flags/${item.flag}/`, body: { active: true } }), READ, { crossed: 404 }),
  ...scoped('DELETE', '/feature_flags/:id/', ({ item }) => ({ tail: `/feature_flags/${item.flag}/` }), REFUSED, { crossed: 405 }),
  ...scoped('GET', '/feature_flags/:id/activity/', ({ item }) => ({ tail: `/feature_flags/${item.flag}/activity/` }), READ, { crossed: 404 }),
  ...scoped('GET', '/feature_flags/:id/remote_config', ({ item }) => ({ tail: `/feature_flags/${item.flag}/remote_config` }), READ, { crossed: 404 }),

  ...scoped('GET', '/surveys/', () => ({ tail: '/surveys/' }), READ),
  ...scoped('POST', '/surveys/', () => ({ tail: '/surveys/', body: { name: `New ${unique()}`, type: 'popover' } }), CREATE),
  ...scoped('GET', '/surveys/:id/', ({ item }) => ({ tail: `/surveys/${item.survey}/` }), READ, { crossed: 404 }),
  ...scoped('PATCH', '/surveys/:id/', ({ item }) => ({ tail: `/surveys/${item.survey}/`, body: { description: 'changed' } }), READ, { crossed: 404 }),
  ...scoped('DELETE', '/surveys/:id/', ({ item }) => ({ tail: `/surveys/${item.survey}/` }), REFUSED, { crossed: 405 }),
  ...scoped('GET', '/surveys/:id/activity/', ({ item }) => ({ tail: `/surveys/${item.survey}/activity/` }), READ, { crossed: 404 }),

  ...scoped('GET', '/insights/', () => ({ tail: '/insights/' }), READ),
  ...scoped('POST', '/insights/', () => ({ tail: '/insights/', body: { name: `New ${unique()}` } }), CREATE),
  ...scoped('GET', '/insights/activity/', () => ({ tail: '/insights/activity/' }), READ),
  ...scoped('GET', '/insights/:id/', ({ item }) => ({ tail: `/insights/${item.insight}/` }), READ, { crossed: 404 }),
  ...scoped('PATCH', '/insights/:id/', ({ item }) => ({ tail: `/insights/${item.insight}/`, body: { description: 'changed' } }), READ, { crossed: 404 }),
  ...scoped('DELETE', '/insights/:id/', ({ item }) => ({ tail: `/insights/${item.insight}/` }), REFUSED, { crossed: 405 }),
  ...scoped('GET', '/insights/:id/activity/', ({ item }) => ({ tail: `/insights/${item.insight}/activity/` }), READ, { crossed: 404 }),
  ...scoped('GET', '/insights/:id/sharing/', ({ item }) => ({ tail: `/insights/${item.insight}/sharing/` }), READ, { crossed: 404 }),
  ...scoped('PATCH', '/insights/:id/sharing/', ({ item }) => ({ tail: `/insights/${item.insight}/sharing/`, body: { enabled: false } }), READ, { crossed: 404 }),
  ...scoped('GET', '/insights/live/', () => ({ tail: '/insights/live/' }), READ),
  ...scoped('POST', '/exports/', ({ item }) => ({ tail: '/exports/', body: { export_format: 'text/csv', insight: item.insight } }), CREATE, { crossed: 400 }),
  ...scoped('GET', '/exports/', () => ({ tail: '/exports/' }), READ),
  ...scoped('GET', '/exports/:id/', ({ item }) => ({ tail: `/exports/${item.export}/` }), READ, { crossed: 404 }),
  ...scoped('GET', '/exports/:id/content/', ({ item }) => ({ tail: `/exports/${item.export}/content/` }), READ, { crossed: 404 }),
  ...scoped('POST', '/query/', () => ({ tail: '/query/', body: { query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode' }] } } }), READ),
  ...scoped('POST', '/query/:kind/', () => ({ tail: '/query/TrendsQuery/', body: { query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode' }] } } }), READ),
  ...scoped('GET', '/query/:query_id/', () => ({ tail: `/query/unknown-${unique()}/` }), levels(404, 404, 404, 403)),
  ...scoped('DELETE', '/query/:query_id/', () => ({ tail: `/query/unknown-${unique()}/` }), levels(404, 404, 404, 403)),

  ...scoped('GET', '/persons/', () => ({ tail: '/persons/' }), READ),
  ...scoped('GET', '/persons/:id/', ({ item }) => ({ tail: `/persons/${item.person}/` }), READ, { crossed: 404 }),
  ...scoped('GET', '/groups/', () => ({ tail: '/groups/?group_type_index=0' }), READ),
  ...scoped('GET', '/groups/find/', ({ item }) => ({ tail: `/groups/find/?group_type_index=0&group_key=${item.groupKey}` }), READ, { crossed: 404 }),
  ...scoped('GET', '/groups_types/', () => ({ tail: '/groups_types/' }), READ),
  ...scoped('GET', '/events/', () => ({ tail: '/events/' }), READ),
  ...scoped('GET', '/events/:id/', ({ item }) => ({ tail: `/events/${item.event}/` }), READ, { crossed: 404 }),
  ...scoped('GET', '/sessions/property_definitions/', () => ({ tail: '/sessions/property_definitions/' }), READ),
  ...scoped('GET', '/sessions/values/', () => ({ tail: '/sessions/values/?key=$entry_current_url' }), READ),
  ...scoped('GET', '/activity_log/', () => ({ tail: '/activity_log/' }), READ),
]

/** Routes under /api/ that hold nothing of a tenant, and why; every other /api/ route must be walked. */
export const NOT_TENANT_SCOPED: Readonly<Record<string, string>> = {
  'OPTIONS /api/surveys/': 'a CORS preflight: it answers headers only and reads nothing',
}
