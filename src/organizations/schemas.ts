import { z } from 'zod'
import { BLANK } from '../accounts/key-schemas.js'
import { MEMBERSHIP_LEVELS } from './levels.js'

/** `{id}` is an organization uuid or `@current`; anything else is a plain 404 in the route. */
export const OrganizationParams = z.object({ id: z.string().max(100) })
export const MemberParams = z.object({ id: z.string().max(100), user_uuid: z.string().max(100) })

export const UpdateOrganizationBody = z.object({
  name: z.string({ error: 'Not a valid string.' }).trim().refine((text) => text !== '', BLANK)
    .refine((text) => text.length <= 64, { error: 'Ensure this field has no more than 64 characters.', params: { drfCode: 'max_length' } }).optional(),
})

/** 1, 8 or 15, as a number or numeric string; anything else is DRF's `invalid_choice`. */
export const membershipLevel = z.preprocess((value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value), z.literal(MEMBERSHIP_LEVELS))

export const UpdateMemberBody = z.object({ level: membershipLevel.optional() })
