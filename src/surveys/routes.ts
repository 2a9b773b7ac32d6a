import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import { basicUsers } from '../accounts/user-lookup.js'
import { activityPage } from '../activity/activity-log.js'
import { commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { environmentOf, methodNotAllowed } from '../http/environment-scope.js'
import { pageOf, paginated } from '../http/pagination.js'
import type { ZodTypeProvider } from '../http/zod.js'
import type { FeatureFlag } from '../flags/state.js'
import type { ReadModels } from '../readstore/read-models.js'
import { surveyActivity } from './activity.js'
import { surveyStream } from './events.js'
import { createSurveyBody, SurveyListQuery, SurveyParams, updateSurveyBody } from './schemas.js'
import { surveyJson, type SurveyFlags } from './serialize.js'
import { createSurvey, findSurvey, updateSurvey, type SurveyDeps } from './service.js'
import type { Survey } from './state.js'

const READ = { scopes: ['survey:read'] }
const WRITE = { scopes: ['survey:write'] }
const ListParams = z.object({ project_id: z.string() })

/** The flags some surveys name, read once. */
export const flagsOf = async (models: ReadModels, surveys: readonly Survey[]): Promise<SurveyFlags> => {
  const ids = new Set(surveys.flatMap((s) => [s.linked_flag_id, s.targeting_flag_id, s.internal_targeting_flag_id]).filter((id): id is number => id !== null))
  const flags = await Promise.all([...ids].map((id) => models.get('feature_flags', String(id))))
  return new Map(flags.filter((flag): flag is FeatureFlag => flag !== null).map((flag) => [flag.id, flag]))
}

/** Surveys of one environment: list, create, get, PATCH (archive with `archived: true`), 405 on DELETE, activity. */
export const surveyRoutes: FastifyPluginAsync<SurveyDeps> = async (plain, deps) => {
  useFormBodies(plain)
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const { models } = deps
  const respond = async (survey: Survey) =>
    surveyJson(survey, await flagsOf(models, [survey]), await basicUsers(models, [survey.created_by]))

  app.get('/surveys/', { config: READ, schema: { params: ListParams, querystring: SurveyListQuery } }, async (request) => {
    const environment = await environmentOf(request, models)
    const search = request.query.search?.toLowerCase()
    const archived = request.query.archived
    const listed = (await models.find('surveys', { where: { environment_id: environment.id }, orderBy: [['id', 'desc']] }))
      .filter((s) => archived === undefined || String(s.archived) === archived)
      .filter((s) => search === undefined || s.name.toLowerCase().includes(search))
    const page = pageOf(request.query)
    const slice = listed.slice(page.offset, page.offset + page.limit)
    const [flags, users] = await Promise.all([flagsOf(models, slice), basicUsers(models, slice.map((s) => s.created_by))])
    return paginated(request, page, listed.length, slice.map((s) => surveyJson(s, flags, users)))
  })

  app.post('/surveys/', { config: WRITE, schema: { params: ListParams } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const body = parseBody(createSurveyBody, request.body)
    return reply.status(201).send(await respond(await createSurvey(deps, environment, body, commandContext(request))))
  })

  app.get('/surveys/:id/', { config: READ, schema: { params: SurveyParams } }, async (request) =>
    respond(await findSurvey(deps, await environmentOf(request, models), request.params.id)))

  app.patch('/surveys/:id/', { config: WRITE, schema: { params: SurveyParams } }, async (request) => {
    const environment = await environmentOf(request, models)
    const survey = await findSurvey(deps, environment, request.params.id)
    const body = parseBody(updateSurveyBody, request.body)
    return respond(await updateSurvey(deps, environment, survey, body, commandContext(request)))
  })

  // Surveys are archived (PATCH `archived: true`), never removed.
  app.delete('/surveys/:id/', { config: WRITE, schema: { params: SurveyParams } }, methodNotAllowed(models))

  app.get('/surveys/:id/activity/', { config: READ, schema: { params: SurveyParams } }, async (request) => {
    const survey = await findSurvey(deps, await environmentOf(request, models), request.params.id)
    return activityPage(request, deps, surveyActivity, surveyStream(survey.id), String(survey.id))
  })
}
