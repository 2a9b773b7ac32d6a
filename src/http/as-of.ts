import { z } from 'zod'
import { parseCutoff, type Cutoff } from '../eventlog/cutoff.js'

/** An ISO 8601 date or date-time, e.g. `2024-05-01T12:00:00Z`. */
export const IsoTime = z.string().max(64).refine((value) => parseCutoff(value)?.kind === 'time', {
  message: 'Enter a valid ISO 8601 date or date-time, e.g. 2024-05-01T12:00:00Z.',
})

/** `?as_of=` on a detail route: the resource as it stood then. Other parameters pass untouched. */
export const AsOfQuery = z.looseObject({ as_of: IsoTime.optional() })

/** Route parameters of an environment-scoped detail route; the prefix's `project_id` stays. */
export const DetailParams = z.looseObject({ id: z.string() })

export const cutoffAt = (asOf: string): Cutoff => ({ kind: 'time', at: new Date(Date.parse(asOf)) })
