import { z } from 'zod'
import { drfBoolean, drfInteger } from '../http/drf.js'
import { flagFiltersSchema } from '../decide/filters-schema.js'
import { invalidChoice } from '../kernel/python-text.js'

export const SURVEY_TYPES = ['popover', 'widget', 'external_survey', 'api'] as const
export const QUESTION_TYPES = ['open', 'link', 'rating', 'multiple_choice', 'single_choice'] as const

const question = z.looseObject({
  type: z.enum(QUESTION_TYPES, { error: (issue) => invalidChoice(issue.input) }),
  question: z.string({ error: 'Question text is required' }).min(1, { error: 'Question text is required' }).max(10_000),
  id: z.string().max(200).optional(),
})

/** A date-time in any form `Date.parse` reads, stored as ISO 8601 UTC. */
const dateTime = z.string().max(100)
  .refine((text) => !Number.isNaN(Date.parse(text)), { error: 'Datetime has wrong format.' })
  .transform((text) => new Date(text).toISOString())

const bounded = (min: number, max: number) => drfInteger.pipe(z.number().min(min).max(max))

const fields = {
  name: z.string().min(1, { error: 'This field may not be blank.' }).max(400),
  description: z.string().max(10_000),
  type: z.enum(SURVEY_TYPES, { error: (issue) => invalidChoice(issue.input) }),
  questions: z.array(question).max(100).nullable(),
  appearance: z.record(z.string(), z.json()).nullable(),
  conditions: z.record(z.string(), z.json()).nullable(),
  start_date: dateTime.nullable(),
  end_date: dateTime.nullable(),
  archived: drfBoolean,
  linked_flag_id: drfInteger.nullable(),
  targeting_flag_filters: flagFiltersSchema.nullable(),
  remove_targeting_flag: drfBoolean.nullable(),
  responses_limit: bounded(1, 1_000_000_000).nullable(),
  iteration_count: bounded(1, 500).nullable(),
  iteration_frequency_days: bounded(1, 3650).nullable(),
  schedule: z.enum(['once', 'recurring', 'always']).nullable(),
  enable_partial_responses: drfBoolean.nullable(),
}

/** What the survey API accepts on create: a name and a type at least; unknown fields are ignored. */
export const createSurveyBody = z.object(fields).partial().required({ name: true, type: true })

export const updateSurveyBody = z.object(fields).partial()

export type CreateSurveyBody = z.output<typeof createSurveyBody>
export type UpdateSurveyBody = z.output<typeof updateSurveyBody>

export const SurveyParams = z.object({ project_id: z.string(), id: z.string() })

export const SurveyListQuery = z.looseObject({
  search: z.string().max(400).optional(),
  archived: z.enum(['true', 'false']).optional(),
})

/** The public list posthog-js asks for: the project token, and the `_` cache buster it may add. */
export const PublicSurveysQuery = z.looseObject({ token: z.string().max(200).optional() })
