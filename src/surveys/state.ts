import { assertNever } from '../kernel/errors.js'
import type { SurveyEvent, SurveyFields } from './events.js'

/** A survey as its events leave it; the read model stores exactly this document. */
export interface Survey extends SurveyFields {
  id: number
  environment_id: number
  created_by: string
  created_at: string
  last_modified_by: string
  updated_at: string
}

export const evolveSurvey = (state: Survey | null, event: SurveyEvent): Survey | null => {
  switch (event.type) {
    case 'SurveyCreated': {
      const { surveyId, environmentId, createdBy, at, ...fields } = event.data
      return { ...fields, id: surveyId, environment_id: environmentId, created_by: createdBy, created_at: at, last_modified_by: createdBy, updated_at: at }
    }
    case 'SurveyUpdated':
      return state === null ? null : { ...state, ...event.data.changes, last_modified_by: event.data.modifiedBy, updated_at: event.data.at }
    default:
      return assertNever(event)
  }
}

/** Launched and not yet stopped nor archived: what posthog-js may show. */
export const isRunning = (survey: Survey): boolean => survey.start_date !== null && survey.end_date === null && !survey.archived

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    surveys: Survey
  }
}
