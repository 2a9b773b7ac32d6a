import type { JsonObject } from '../eventlog/port.js'
import type { BasicUser } from '../accounts/users.js'
import { apiTime } from '../http/timestamps.js'

/** PostHog's invite object; `is_expired` is worked out at `now`. */
export const inviteJson = (invite: JsonObject, users: Map<string, BasicUser>, now: string) => ({
  id: invite['id'],
  target_email: invite['target_email'],
  first_name: invite['first_name'],
  emailing_attempt_made: invite['emailing_attempt_made'] === true,
  level: invite['level'],
  is_expired: Date.parse(now) >= Date.parse(String(invite['expires_at'])),
  created_by: users.get(String(invite['created_by'])) ?? null,
  created_at: apiTime(String(invite['created_at'])),
  updated_at: apiTime(String(invite['updated_at'])),
  message: invite['message'],
  private_project_access: [],
})
