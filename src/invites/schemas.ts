import { z } from 'zod'
import { drfBoolean } from '../http/drf.js'
import { MEMBER_LEVEL } from '../organizations/levels.js'
import { membershipLevel } from '../organizations/schemas.js'

export const InviteParams = z.object({ id: z.string().max(100), invite_id: z.string().max(100) })

export const CreateInviteBody = z.object({
  target_email: z.email({ error: (issue) => (issue.input === undefined ? 'This field is required.' : 'Enter a valid email address.') }).max(254),
  first_name: z.string().max(30).default(''),
  level: membershipLevel.default(MEMBER_LEVEL),
  message: z.string().max(1000).nullable().default(null),
  send_email: drfBoolean.default(true),
  private_project_access: z.array(z.unknown()).max(100).nullable().optional(),
})
export type CreateInviteBody = z.infer<typeof CreateInviteBody>
