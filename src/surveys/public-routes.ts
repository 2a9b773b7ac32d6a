import type { FastifyPluginAsync } from 'fastify'
import type { EventLog } from '../eventlog/port.js'
import type { ZodTypeProvider } from '../http/zod.js'
import { answerPreflight } from '../ingestion/cors.js'
import { TokenResolver } from '../ingestion/environments.js'
import { DomainError } from '../kernel/errors.js'
import type { ReadModels } from '../readstore/read-models.js'
import { flagsOf } from './routes.js'
import { PublicSurveysQuery } from './schemas.js'
import { publicSurveyJson } from './serialize.js'

export interface PublicSurveyDeps {
  readonly log: EventLog
  readonly models: ReadModels
  readonly tokens?: TokenResolver
}

const NO_TOKEN = 'API key not provided. You can find your project API key in your PostHog project settings.'
const BAD_TOKEN = 'Project API key invalid. You can find your project API key in your PostHog project settings.'

/**
 * `GET /api/surveys/?token=…`: the surveys posthog-js may show on a page, for anyone holding the
 * project token. Archived surveys are left out; posthog-js itself checks dates, flags and conditions.
 */
export const publicSurveyRoutes: FastifyPluginAsync<PublicSurveyDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const tokens = deps.tokens ?? new TokenResolver(deps)

  app.get('/api/surveys/', { schema: { querystring: PublicSurveysQuery } }, async (request) => {
    const token = request.query.token
    if (token === undefined || token === '') throw new DomainError(401, 'authentication_error', 'no_api_key', NO_TOKEN)
    const environmentId = await tokens.resolve(token)
    if (environmentId === null) throw new DomainError(401, 'authentication_error', 'invalid_api_key', BAD_TOKEN)
    const surveys = (await deps.models.find('surveys', { where: { environment_id: environmentId }, orderBy: [['id', 'asc']] }))
      .filter((survey) => !survey.archived)
    const [flags, environment] = await Promise.all([flagsOf(deps.models, surveys), deps.models.get('environments', String(environmentId))])
    const settings = (environment?.['settings'] ?? {}) as Record<string, unknown>
    return { surveys: surveys.map((survey) => publicSurveyJson(survey, flags)), survey_config: settings['survey_config'] ?? null }
  })

  app.options('/api/surveys/', answerPreflight)
}
