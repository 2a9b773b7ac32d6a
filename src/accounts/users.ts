import type { JsonObject } from '../eventlog/port.js'

/** PostHog's "basic user" shape, embedded as `created_by`, collaborator `user`, and so on. */
export const basicUser = (user: JsonObject) => ({
  id: user['id'],
  uuid: user['uuid'],
  distinct_id: user['distinct_id'],
  first_name: user['first_name'],
  last_name: user['last_name'],
  email: user['email'],
  is_email_verified: user['is_email_verified'],
  hedgehog_config: user['hedgehog_config'],
  role_at_organization: user['role_at_organization'],
})
