import { z } from 'zod'
import type { JsonObject } from '../eventlog/port.js'

/** PostHog's "basic user" shape, embedded as `created_by`, collaborator `user`, and so on. */
export const BasicUserResponse = z.object({
  id: z.number(),
  uuid: z.string(),
  distinct_id: z.string().nullable(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  is_email_verified: z.boolean().nullable(),
  hedgehog_config: z.unknown(),
  role_at_organization: z.string().nullable(),
}).meta({ kept: true })
export type BasicUser = z.input<typeof BasicUserResponse>

/** A user document's basic shape; a field the document lacks is left out. */
export const basicUser = (user: JsonObject): BasicUser => ({
  id: user['id'],
  uuid: user['uuid'],
  distinct_id: user['distinct_id'],
  first_name: user['first_name'],
  last_name: user['last_name'],
  email: user['email'],
  is_email_verified: user['is_email_verified'],
  hedgehog_config: user['hedgehog_config'],
  role_at_organization: user['role_at_organization'],
}) as BasicUser
