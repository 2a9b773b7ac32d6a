import { z } from 'zod'
import { drfBoolean } from '../http/drf.js'
import { INVALID_FLAG_KEY_MESSAGE, flagFiltersCreateSchema, flagFiltersSchema, isValidFlagKey } from '../decide/filters-schema.js'

const key = z.string().max(400).refine(isValidFlagKey, { error: INVALID_FLAG_KEY_MESSAGE })

const fields = {
  key,
  name: z.string().nullable(),
  active: drfBoolean,
  ensure_experience_continuity: drfBoolean.nullable(),
  tags: z.array(z.string()),
  deleted: drfBoolean,
  is_remote_configuration: drfBoolean.nullable(),
}

/** What the flag API accepts; unknown fields (experiment_set, rollback_conditions …) are ignored. */
export const createFlagBody = z.object({
  ...fields,
  name: fields.name.optional(),
  active: fields.active.optional(),
  ensure_experience_continuity: fields.ensure_experience_continuity.optional(),
  tags: fields.tags.optional(),
  deleted: fields.deleted.optional(),
  is_remote_configuration: fields.is_remote_configuration.optional(),
  filters: flagFiltersCreateSchema.optional(),
})

export const updateFlagBody = z.object({ ...fields, filters: flagFiltersSchema }).partial()

/** A flag created without filters targets nobody until someone adds a condition. */
export const DEFAULT_FILTERS = { groups: [{ properties: [], rollout_percentage: 0 }] }
