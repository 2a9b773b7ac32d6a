import type { JsonObject } from '../eventlog/port.js'
import { basicUser } from '../accounts/users.js'
import { apiTime } from '../http/timestamps.js'

export const slugOf = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 48) || 'organization'

/** PostHog's organization object, with the caller's level and the organization's projects and environments. */
export const organizationJson = (organization: JsonObject, context: { level: number; projects: JsonObject[]; environments: JsonObject[]; memberCount: number }) => ({
  id: organization['id'],
  name: organization['name'],
  slug: slugOf(String(organization['name'])),
  logo_media_id: null,
  created_at: apiTime(String(organization['created_at'])),
  updated_at: apiTime(String(organization['updated_at'] ?? organization['created_at'])),
  membership_level: context.level,
  plugins_access_level: 9,
  teams: context.environments.map((e) => ({ id: e['id'], uuid: e['uuid'], organization: e['organization'], project_id: e['project_id'], api_token: e['api_token'], name: e['name'] })),
  projects: context.projects.map((p) => ({ id: p['id'], name: p['name'] })),
  available_product_features: [],
  is_member_join_email_enabled: true,
  metadata: {},
  customer_id: null,
  enforce_2fa: null,
  members_can_invite: true,
  members_can_use_personal_api_keys: true,
  member_count: context.memberCount,
})

/**
 * A membership as PostHog lists it. Hedgelog users belong to one organization, so the
 * membership's id is the user's uuid.
 */
export const memberJson = (user: JsonObject) => ({
  id: user['uuid'],
  user: basicUser(user),
  level: user['membership_level'],
  joined_at: apiTime(String(user['date_joined'])),
  updated_at: apiTime(String(user['membership_updated_at'] ?? user['date_joined'])),
  is_2fa_enabled: false,
  has_social_auth: false,
  last_login: null,
})
