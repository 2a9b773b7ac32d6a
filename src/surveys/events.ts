import type { JsonObject } from '../eventlog/port.js'

/** What a survey is: PostHog's survey fields that Hedgelog stores and serves. */
export interface SurveyFields extends JsonObject {
  name: string
  description: string
  type: string
  questions: unknown[]
  appearance: unknown
  conditions: unknown
  start_date: string | null
  end_date: string | null
  archived: boolean
  linked_flag_id: number | null
  /** The flag built from `targeting_flag_filters`: who may see the survey. */
  targeting_flag_id: number | null
  /** The flag that hides the survey from people who already dismissed or answered it. */
  internal_targeting_flag_id: number | null
  responses_limit: number | null
  iteration_count: number | null
  iteration_frequency_days: number | null
  schedule: string | null
  enable_partial_responses: boolean
}

export type SurveyCreated = {
  type: 'SurveyCreated'
  data: SurveyFields & { surveyId: number; environmentId: number; createdBy: string; at: string }
}
export type SurveyUpdated = { type: 'SurveyUpdated'; data: { changes: Partial<SurveyFields>; modifiedBy: string; at: string } }

export type SurveyEvent = SurveyCreated | SurveyUpdated

export const SURVEY_EVENT_TYPES: readonly SurveyEvent['type'][] = ['SurveyCreated', 'SurveyUpdated']

export const surveyStream = (id: number) => `survey-${id}`
