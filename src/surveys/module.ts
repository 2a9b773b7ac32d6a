import type { FeatureModule } from '../http/feature-module.js'
import { surveyActivity } from './activity.js'
import { SURVEY_EVENT_TYPES, surveyStream } from './events.js'
import { surveys } from './projection.js'
import type { PublicSurveyDeps } from './public-routes.js'
import type { SurveyDeps } from './service.js'

/** Surveys: managed under an environment, read by SDKs through the public route. */
export const surveysModule: FeatureModule<SurveyDeps & PublicSurveyDeps> = {
  name: 'surveys',
  eventTypes: SURVEY_EVENT_TYPES,
  projectors: [surveys],
  audited: [{ kind: 'survey', collection: 'surveys', stream: surveyStream, activity: surveyActivity }],
  routes: async () => {
    const [{ publicSurveyRoutes }, { surveyRoutes }] = await Promise.all([import('./public-routes.js'), import('./routes.js')])
    return { environment: [surveyRoutes], ingest: [publicSurveyRoutes] }
  },
}
