import t from 'tap'
import { environmentStream, organizationStream } from '../../src/accounts/events.js'
import { flagKeyDecider } from '../../src/flags/decider.js'
import { flagKeyStream, flagStream, type FeatureFlagEvent, type FlagKeyEvent } from '../../src/flags/events.js'
import { evolveFlag } from '../../src/flags/state.js'
import { readAggregate } from '../../src/kernel/handle-command.js'
import { inviteStream } from '../../src/invites/events.js'
import { ADMIN_LEVEL } from '../../src/organizations/levels.js'
import { subscriptionStream } from '../../src/subscriptions/events.js'
import { surveyStream } from '../../src/surveys/events.js'
import { addMember } from '../support/members.js'
import { bodyOf, raceEveryPair, raceWorld, type Op } from '../support/races.js'

// Every pair of commands on one aggregate of each kind with management routes, raced as
// `raceEveryPair` races them (dashboards have their own file): no answer may be a 5xx.

interface Raced {
  readonly stream: string
  readonly url: string
}

const ROLLOUT = { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: { theme: 'dark' } } }

t.test('feature flags', async (t) => {
  const w = await raceWorld(t)
  const { api } = w
  const base = `/api/environments/${w.installation.environment_id}/feature_flags/`
  let made = 0
  // A remote config flag with a payload, live or soft-deleted.
  const fresh = async (start: 'live' | 'deleted'): Promise<Raced & { key: string }> => {
    const key = `raced-${start}-${made++}`
    const flag = await bodyOf(api('POST', base, { key, filters: ROLLOUT, is_remote_configuration: true, deleted: start === 'deleted' }), 201)
    return { stream: flagStream(flag['id']), url: `${base}${flag['id']}/`, key }
  }
  const ops: Record<string, Op<Raced & { key: string }>> = {
    PATCH: { run: (f) => api('PATCH', f.url, { name: 'renamed', active: false, tags: ['raced'] }) },
    'key change': { run: (f) => api('PATCH', f.url, { key: `${f.key}-renamed` }) },
    delete: { run: (f) => api('PATCH', f.url, { deleted: true }) },
    restore: { run: (f) => api('PATCH', f.url, { deleted: false }) },
    'remote config off': { run: (f) => api('PATCH', f.url, { is_remote_configuration: false }) },
    'remote_config read': { run: (f) => api('GET', `${base}${f.key}/remote_config`), bare: [404] },
    DELETE: { run: (f) => api('DELETE', f.url), bare: [405] },
  }
  // A flag live under a key holds that key's claim, so no other flag can take the key.
  const after = async (f: Raced & { key: string }): Promise<string | null> => {
    const flag = (await readAggregate<FeatureFlagEvent>(w.log, f.stream)).events.reduce(evolveFlag, null)
    if (flag === null || flag.deleted) return null
    const claims = await readAggregate<FlagKeyEvent>(w.log, flagKeyStream(w.installation.environment_id, flag.key))
    const { holder } = claims.events.reduce(flagKeyDecider.evolve, flagKeyDecider.initialState())
    return holder === flag.id ? null : `flag ${flag.id} is live under ${flag.key}, whose claim is held by ${holder}`
  }
  await raceEveryPair(t, { starts: ['live', 'deleted'], fresh, ops, after })
})

t.test('subscriptions', async (t) => {
  const w = await raceWorld(t)
  const { api } = w
  const environment = `/api/environments/${w.installation.environment_id}`
  const dashboard = await bodyOf(api('POST', `${environment}/dashboards/`, { name: 'delivered' }), 201)
  const base = `${environment}/subscriptions/`
  const fresh = async (): Promise<Raced> => {
    const subscription = await bodyOf(api('POST', base, {
      dashboard: dashboard['id'], target_type: 'email', target_value: 'raced@example.com', frequency: 'daily', start_date: '2030-01-01T09:00:00Z',
    }), 201)
    return { stream: subscriptionStream(subscription['id']), url: `${base}${subscription['id']}/` }
  }
  const ops: Record<string, Op<Raced>> = {
    PATCH: { run: (s) => api('PATCH', s.url, { title: 'renamed', frequency: 'weekly', byweekday: ['monday'] }) },
    delete: { run: (s) => api('PATCH', s.url, { deleted: true }) },
    restore: { run: (s) => api('PATCH', s.url, { deleted: false }) },
    DELETE: { run: (s) => api('DELETE', s.url), bare: [405] },
    // Records its outcome (no mail is set up here, so a failure) in the subscription's stream.
    'test delivery': { run: (s) => api('POST', `${s.url}test-delivery/`) },
  }
  await raceEveryPair(t, { starts: ['live'], fresh, ops })
})

t.test('surveys', async (t) => {
  const w = await raceWorld(t)
  const { api } = w
  const base = `/api/environments/${w.installation.environment_id}/surveys/`
  const fresh = async (): Promise<Raced> => {
    const survey = await bodyOf(api('POST', base, { name: 'raced', type: 'popover', targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 50 }] } }), 201)
    return { stream: surveyStream(survey['id']), url: `${base}${survey['id']}/` }
  }
  // Surveys are never removed, so every PATCH succeeds, whatever happened to the targeting flag meanwhile.
  const ops: Record<string, Op<Raced>> = {
    PATCH: { run: (s) => api('PATCH', s.url, { name: 'renamed', description: 'changed', questions: [{ type: 'open', question: 'Why?' }] }), only: [200] },
    archive: { run: (s) => api('PATCH', s.url, { archived: true }), only: [200] },
    retarget: { run: (s) => api('PATCH', s.url, { targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 20 }] } }), only: [200] },
    'remove targeting': { run: (s) => api('PATCH', s.url, { remove_targeting_flag: true }), only: [200] },
    DELETE: { run: (s) => api('DELETE', s.url), bare: [405] },
  }
  await raceEveryPair(t, { starts: ['live'], fresh, ops })
})

t.test('environments', async (t) => {
  const w = await raceWorld(t)
  const { api } = w
  const id = w.installation.environment_id
  // Environments are not removed; every race takes the installation's as it stands.
  const fresh = async (): Promise<Raced> => ({ stream: environmentStream(id), url: `/api/environments/${id}/` })
  const ops: Record<string, Op<Raced>> = {
    PATCH: { run: (e) => api('PATCH', e.url, { name: `renamed ${Math.random()}`, anonymize_ips: Math.random() < 0.5 }) },
    'PATCH under the project': { run: () => api('PATCH', `/api/projects/${id}/environments/${id}/`, { timezone: 'Europe/Paris' }) },
    reset_token: { run: (e) => api('PATCH', `${e.url}reset_token/`) },
  }
  await raceEveryPair(t, { starts: ['as it stands'], fresh, ops })
})

t.test('organizations, their members and invites', async (t) => {
  const w = await raceWorld(t)
  const { api } = w
  const organization = `/api/organizations/${w.installation.organization_id}/`
  // One organization; each race a member of its own, joined as an admin so every level change is one.
  const fresh = async (): Promise<Raced & { member: string }> => {
    const member = await addMember(w, { level: ADMIN_LEVEL })
    return { stream: organizationStream(w.installation.organization_id), url: organization, member: member.uuid }
  }
  const ops: Record<string, Op<Raced & { member: string }>> = {
    rename: { run: (o) => api('PATCH', o.url, { name: `renamed ${Math.random()}` }) },
    'member level': { run: (o) => api('PATCH', `${o.url}members/${o.member}/`, { level: 1 }) },
    'member remove': { run: (o) => api('DELETE', `${o.url}members/${o.member}/`) },
  }
  await raceEveryPair(t, { starts: ['with a new admin'], fresh, ops })

  const invites = `${organization}invites/`
  const invited = async (): Promise<Raced> => {
    const invite = await bodyOf(api('POST', invites, { target_email: `raced-${Math.random()}@example.com`, level: 1, send_email: false }), 201)
    return { stream: inviteStream(invite['id']), url: `${invites}${invite['id']}/` }
  }
  await raceEveryPair(t, { starts: ['pending'], fresh: invited, ops: { delete: { run: (i) => api('DELETE', i.url) } } })
})
