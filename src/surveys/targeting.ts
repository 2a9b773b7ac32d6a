import { randomBytes } from 'node:crypto'
import type { JsonObject } from '../eventlog/port.js'
import type { FlagFields } from '../flags/events.js'

/** PostHog names survey flags `survey-targeting-<random>`; the internal one ends in `-custom`. */
const targetingKey = (suffix = ''): string => `survey-targeting-${randomBytes(4).toString('hex')}${suffix}`

const flagFields = (key: string, name: string, filters: JsonObject): FlagFields => ({
  key, name, filters, active: true, ensure_experience_continuity: false, tags: [], is_remote_configuration: false,
})

/** The flag built from a survey's `targeting_flag_filters`: who may see it. */
export const targetingFlagFields = (surveyName: string, filters: JsonObject): FlagFields =>
  flagFields(targetingKey(), `Targeting flag for survey ${surveyName}`, filters)

/**
 * The flag posthog-js checks before showing a survey again: on for everyone until the person has
 * dismissed or answered this survey (posthog-js sets `$survey_dismissed/<id>` and
 * `$survey_responded/<id>` on the person when they do).
 */
export const internalTargetingFlagFields = (surveyId: number, surveyName: string): FlagFields =>
  flagFields(targetingKey('-custom'), `Targeting flag for survey ${surveyName}`, {
    groups: [{
      variant: null,
      rollout_percentage: 100,
      properties: ['$survey_dismissed', '$survey_responded'].map((name) => ({
        key: `${name}/${surveyId}`, type: 'person', value: 'is_not_set', operator: 'is_not_set',
      })),
    }],
  })
