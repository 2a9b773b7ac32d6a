import { apiTime } from '../http/timestamps.js'
import type { BasicUser } from '../accounts/users.js'
import type { FeatureFlag } from '../flags/state.js'
import type { Survey } from './state.js'

/** The survey's flags by id, as the serializers name them. */
export type SurveyFlags = ReadonlyMap<number, FeatureFlag>

const keyOf = (flags: SurveyFlags, id: number | null): string | null => {
  const flag = id === null ? undefined : flags.get(id)
  return flag && !flag.deleted ? flag.key : null
}

const flagSummary = (flags: SurveyFlags, id: number | null) => {
  const flag = id === null ? undefined : flags.get(id)
  return flag && !flag.deleted ? { id: flag.id, key: flag.key, name: flag.name, filters: flag.filters, active: flag.active, deleted: flag.deleted } : null
}

/** The fields posthog-js reads to decide whether and how to show a survey. */
export const publicSurveyJson = (survey: Survey, flags: SurveyFlags) => ({
  id: survey.id,
  name: survey.name,
  description: survey.description,
  type: survey.type,
  feature_flag_keys: [
    { key: 'linked_flag_key', value: keyOf(flags, survey.linked_flag_id) },
    { key: 'targeting_flag_key', value: keyOf(flags, survey.targeting_flag_id) },
    { key: 'internal_targeting_flag_key', value: keyOf(flags, survey.internal_targeting_flag_id) },
  ],
  linked_flag_key: keyOf(flags, survey.linked_flag_id),
  targeting_flag_key: keyOf(flags, survey.targeting_flag_id),
  internal_targeting_flag_key: keyOf(flags, survey.internal_targeting_flag_id),
  questions: survey.questions,
  conditions: survey.conditions,
  appearance: survey.appearance,
  start_date: apiTime(survey.start_date),
  end_date: apiTime(survey.end_date),
  current_iteration: null,
  current_iteration_start_date: null,
  schedule: survey.schedule,
  enable_partial_responses: survey.enable_partial_responses,
})

/** PostHog's survey shape for the management API. */
export const surveyJson = (survey: Survey, flags: SurveyFlags, users: ReadonlyMap<string, BasicUser>) => ({
  ...publicSurveyJson(survey, flags),
  linked_flag: flagSummary(flags, survey.linked_flag_id),
  linked_flag_id: survey.linked_flag_id,
  targeting_flag: flagSummary(flags, survey.targeting_flag_id),
  internal_targeting_flag: flagSummary(flags, survey.internal_targeting_flag_id),
  created_at: apiTime(survey.created_at),
  created_by: users.get(survey.created_by) ?? null,
  archived: survey.archived,
  responses_limit: survey.responses_limit,
  iteration_count: survey.iteration_count,
  iteration_frequency_days: survey.iteration_frequency_days,
  iteration_start_dates: [],
})
