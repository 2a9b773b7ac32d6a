import { canonicalJson } from '../kernel/canonical-json.js'
import { NotFound, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import type { SurveyCreated, SurveyEvent, SurveyFields } from './events.js'
import { evolveSurvey, type Survey } from './state.js'

export type SurveyCommand =
  | { type: 'CreateSurvey'; data: SurveyCreated['data'] }
  | { type: 'UpdateSurvey'; changes: Partial<SurveyFields>; actor: string; at: string }

/** A survey is created once; an update records only the fields that really change (archiving is one of them). */
export const surveyDecider: Decider<Survey | null, SurveyCommand, SurveyEvent> = {
  initialState: () => null,
  evolve: evolveSurvey,
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateSurvey':
        return state === null ? [{ type: 'SurveyCreated', data: command.data }] : []
      case 'UpdateSurvey': {
        if (state === null) throw new NotFound()
        const changes = Object.fromEntries(Object.entries(command.changes)
          .filter(([field, value]) => value !== undefined && canonicalJson(state[field]) !== canonicalJson(value))) as Partial<SurveyFields>
        if (Object.keys(changes).length === 0) return []
        return [{ type: 'SurveyUpdated', data: { changes, modifiedBy: command.actor, at: command.at } }]
      }
      default:
        return assertNever(command)
    }
  },
}
