import { z } from 'zod'

/** DRF's `blank` code for an empty string. */
export const BLANK = { error: 'This field may not be blank.', params: { drfCode: 'blank' } }

export const KeyParams = z.object({ id: z.string().max(100) })

const required = (what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? 'This field is required.' : what) })

export const CreateKeyBody = z.object({
  label: z.string(required('Not a valid string.')).trim().refine((text) => text !== '', BLANK)
    .refine((text) => text.length <= 40, { error: 'Ensure this field has no more than 40 characters.', params: { drfCode: 'max_length' } }),
  scopes: z.array(z.string().max(100), required('Expected a list of items.')).max(100),
  scoped_teams: z.array(z.number().int(), { error: 'Expected a list of items.' }).max(1000).nullable().optional(),
  scoped_organizations: z.array(z.string().max(100), { error: 'Expected a list of items.' }).max(100).nullable().optional(),
})
