import type { JsonObject } from '../eventlog/port.js'
import type { Environment } from '../readstore/environment.js'
import { NotFound, ValidationFailed } from '../kernel/errors.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { allocateId } from '../kernel/sequence.js'
import { createFlag, findFlag, updateFlag, type FlagDeps } from '../flags/service.js'
import { surveyDecider, type SurveyCommand } from './decider.js'
import { surveyStream, type SurveyFields } from './events.js'
import type { CreateSurveyBody, UpdateSurveyBody } from './schemas.js'
import type { Survey } from './state.js'
import { internalTargetingFlagFields, targetingFlagFields } from './targeting.js'

export type SurveyDeps = FlagDeps

/** A survey of this environment; anything else is 404. */
export const findSurvey = async (deps: SurveyDeps, environment: Environment, id: string): Promise<Survey> => {
  const survey = /^\d+$/.test(id) ? await deps.models.get('surveys', String(Number(id))) : null
  if (!survey || survey.environment_id !== environment.id) throw new NotFound()
  return survey
}

const checkLinkedFlag = async (deps: SurveyDeps, environment: Environment, id: number | null | undefined): Promise<void> => {
  if (id === null || id === undefined) return
  try {
    const flag = await findFlag(deps.models, environment, String(id))
    if (!flag.deleted) return
  } catch (error) {
    if (!(error instanceof NotFound)) throw error
  }
  throw new ValidationFailed(`Invalid pk "${id}" - object does not exist.`, 'linked_flag_id', 'does_not_exist')
}

const run = async (deps: SurveyDeps, id: number, command: SurveyCommand, context: CommandContext): Promise<Survey> => {
  const result = await handleCommand(deps.log, surveyDecider, surveyStream(id), command, context)
  const survey = await deps.models.settled(result.position, 'surveys', String(id))
  if (!survey) throw new NotFound()
  return survey
}

/** The stored fields a body sets, leaving out what is not a survey field. */
const fieldsOf = (body: UpdateSurveyBody): Partial<SurveyFields> => {
  const { targeting_flag_filters: _filters, remove_targeting_flag: _remove, ...rest } = body
  const fields: Partial<SurveyFields> = { ...rest } as Partial<SurveyFields>
  if (body.questions === null) fields.questions = []
  if (body.enable_partial_responses === null) fields.enable_partial_responses = false
  return fields
}

/**
 * Creates the survey's flags first (the targeting flag from `targeting_flag_filters`, and the
 * internal one that hides it from people who already answered or dismissed it), then the survey.
 */
export const createSurvey = async (deps: SurveyDeps, environment: Environment, body: CreateSurveyBody, context: CommandContext): Promise<Survey> => {
  await checkLinkedFlag(deps, environment, body.linked_flag_id)
  const surveyId = await allocateId(deps.log, 'survey', context)
  const targeting = body.targeting_flag_filters
    ? await createFlag(deps, environment, targetingFlagFields(body.name, body.targeting_flag_filters as JsonObject), context)
    : null
  const internal = await createFlag(deps, environment, internalTargetingFlagFields(surveyId, body.name), context)
  const fields: SurveyFields = {
    name: body.name, description: '', type: body.type, questions: [], appearance: null, conditions: null,
    start_date: null, end_date: null, archived: false, linked_flag_id: null, responses_limit: null,
    iteration_count: null, iteration_frequency_days: null, schedule: 'once', enable_partial_responses: false,
    ...fieldsOf(body),
    targeting_flag_id: targeting?.id ?? null,
    internal_targeting_flag_id: internal.id,
  }
  return run(deps, surveyId, { type: 'CreateSurvey', data: { ...fields, surveyId, environmentId: environment.id, createdBy: context.actor, at: context.now } }, context)
}

/** What an update of a flag gives, or null when a concurrent request deleted the flag first. */
const unlessDeleted = async <T>(update: Promise<T>): Promise<T | null> => {
  try {
    return await update
  } catch (error) {
    if (error instanceof NotFound) return null
    throw error
  }
}

/**
 * The targeting flag after a PATCH: new filters update or create it; null filters or
 * `remove_targeting_flag` delete it. A flag another request deleted meanwhile counts as gone.
 */
const retarget = async (deps: SurveyDeps, environment: Environment, survey: Survey, body: UpdateSurveyBody, context: CommandContext): Promise<number | null> => {
  const current = survey.targeting_flag_id === null ? null : await findFlag(deps.models, environment, String(survey.targeting_flag_id)).catch(() => null)
  const remove = body.remove_targeting_flag === true || body.targeting_flag_filters === null
  if (remove) {
    if (current && !current.deleted) await unlessDeleted(updateFlag(deps, current, {}, true, context))
    return null
  }
  if (!body.targeting_flag_filters) return survey.targeting_flag_id
  const filters = body.targeting_flag_filters as JsonObject
  const updated = current && !current.deleted ? await unlessDeleted(updateFlag(deps, current, { filters }, undefined, context)) : null
  return updated?.id ?? (await createFlag(deps, environment, targetingFlagFields(body.name ?? survey.name, filters), context)).id
}

export const updateSurvey = async (deps: SurveyDeps, environment: Environment, survey: Survey, body: UpdateSurveyBody, context: CommandContext): Promise<Survey> => {
  await checkLinkedFlag(deps, environment, body.linked_flag_id)
  const changes = { ...fieldsOf(body), targeting_flag_id: await retarget(deps, environment, survey, body, context) }
  return run(deps, survey.id, { type: 'UpdateSurvey', changes, actor: context.actor, at: context.now }, context)
}
