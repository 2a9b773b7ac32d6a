import type { ActivitySource } from '../kernel/activity-source.js'
import type { SurveyEvent } from './events.js'
import { evolveSurvey, type Survey } from './state.js'

export const surveyActivity: ActivitySource<Survey | null, SurveyEvent> = {
  scope: 'Survey',
  initialState: null,
  evolve: evolveSurvey,
  activityOf: (event) => (event.type === 'SurveyCreated' ? 'created' : 'updated'),
  nameOf: (state) => state?.name ?? null,
  ignoredFields: ['updated_at', 'last_modified_by'],
}
