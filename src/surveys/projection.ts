import { SURVEY_EVENT_TYPES, type SurveyEvent } from './events.js'
import { evolveSurvey, type Survey } from './state.js'
import { asDomainEvent, documentProjector } from '../readstore/projector.js'

/** Surveys exactly as their events leave them. */
export const surveys = documentProjector<Survey>({
  name: 'surveys',
  version: 1,
  collection: 'surveys',
  handles: SURVEY_EVENT_TYPES,
  indexes: [['environment_id']],
  idOf: (event) => event.streamId.slice('survey-'.length),
  evolve: (doc, event) => evolveSurvey(doc, asDomainEvent<SurveyEvent>(event)),
})
