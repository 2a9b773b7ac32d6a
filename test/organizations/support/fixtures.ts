import { issueApiKey } from '../../../src/accounts/commands.js'
import type { client } from '../../support/client.js'
import { addMember } from '../../support/members.js'
import type { twoOrganizations } from '../../support/tenants.js'
import { context } from '../../support/world.js'

type Api = ReturnType<typeof client>
type World = Awaited<ReturnType<typeof twoOrganizations>>

/** What one environment holds: the ids a route walk puts in paths, each resource named with the tenant's marker. */
export interface Seeded {
  readonly marker: string
  readonly env: number
  readonly token: string
  readonly dashboard: number
  readonly tile: number
  readonly restricted: number
  readonly flag: number
  readonly survey: number
  /** A CSV export of its insight. */
  readonly export: number
  readonly insight: number
  readonly subscription: number
  readonly person: string
  readonly event: string
  readonly groupKey: string
}

const created = async (response: Promise<{ status: number; body: any; raw: string }>, what: string) => {
  const answer = await response
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`${what} not created: ${answer.status} ${answer.raw}`)
  return answer.body
}

/** Fills an environment, through the API and its project token, with one of everything the routes read. */
export const seedEnvironment = async (w: World, api: Api, env: number, token: string, marker: string): Promise<Seeded> => {
  const base = `/api/environments/${env}`
  const dashboard = await created(api.post(`${base}/dashboards/`, { name: `${marker} board` }), 'dashboard')
  const withTile = await created(api.patch(`${base}/dashboards/${dashboard.id}/`, { tiles: [{ text: { body: `${marker} note` } }] }), 'tile')
  const restricted = await created(api.post(`${base}/dashboards/`, { name: `${marker} restricted`, restriction_level: 37 }), 'restricted dashboard')
  const flag = await created(api.post(`${base}/feature_flags/`, {
    key: `${marker}-flag`, name: `${marker} flag`, is_remote_configuration: true,
    filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: { note: `${marker} payload` } } },
  }), 'flag')
  const survey = await created(api.post(`${base}/surveys/`, { name: `${marker} survey`, type: 'popover', start_date: '2024-01-01T00:00:00Z' }), 'survey')
  const insight = await created(api.post(`${base}/insights/`, {
    name: `${marker} insight`, query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: `${marker} event` }] } },
  }), 'insight')
  const exported = await created(api.post(`${base}/exports/`, { export_format: 'text/csv', insight: insight.id }), 'export')
  const subscription = await created(api.post(`${base}/subscriptions/`, {
    dashboard: dashboard.id, target_type: 'email', target_value: `${marker}@example.com`, frequency: 'weekly', start_date: '2022-01-01T00:00:00', title: `${marker} subscription`,
  }), 'subscription')
  const event = crypto.randomUUID()
  const distinctId = `${marker}-person`
  const properties = { $session_id: crypto.randomUUID(), $current_url: `https://${marker}.example.com/` }
  await created(api.post('/batch/', {
    api_key: token,
    batch: [
      { event: `${marker}-event`, distinct_id: distinctId, uuid: event, properties: { ...properties, $set: { email: `${marker}@example.com` } } },
      { event: '$groupidentify', distinct_id: distinctId, properties: { ...properties, $group_type: 'company', $group_key: `${marker}-co`, $group_set: { name: `${marker} co` } } },
    ],
  }), 'events')
  await w.models.waitFor((await w.log.headPosition())!, ['events', 'persons', 'groups', 'group_type_mappings', 'session_values'])
  const persons = (await api.get(`${base}/persons/?distinct_id=${distinctId}`)).body
  return {
    marker, env, token, dashboard: dashboard.id, tile: withTile.tiles[0].id, restricted: restricted.id, flag: flag.id,
    survey: survey.id, insight: insight.id, export: exported.id as number, subscription: subscription.id, person: persons.results[0].uuid, event, groupKey: `${marker}-co`,
  }
}

/** A member of the organization whose level others may change, made afresh and invited by its owner. */
export const freshMember = async (w: World, organizationId: string) =>
  (await addMember(w, { organizationId, invitedBy: organizationId === w.b.organization_id ? w.b.headers : w.bearer(w.key.value) })).uuid

/** A pending invite to the organization, made afresh by one of its members. */
export const freshInvite = async (api: Api, organizationId: string) =>
  (await created(api.post(`/api/organizations/${organizationId}/invites/`, { target_email: `invitee-${crypto.randomUUID().slice(0, 8)}@example.com` }), 'invite')).id as string

/** A key without scopes (PostHog's session stand-in) for a user, as key management requires. */
export const legacyKey = (w: World, userUuid: string, label: string) => projectedKey(w, { userUuid, scopes: null, label })

/** A key issued straight into the log, once the key read model shows it. */
export const projectedKey = async (w: World, request: Parameters<typeof issueApiKey>[1]) => {
  const key = await issueApiKey(w.log, request, context())
  if (key.position) await w.models.waitFor(key.position, ['personal_api_keys'])
  return key
}
