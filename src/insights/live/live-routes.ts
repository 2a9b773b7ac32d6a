import type { FastifyPluginAsync } from 'fastify'
import { environmentOf } from '../../http/environment-scope.js'
import { ScopedParams } from '../../http/zod.js'
import type { ReadModels } from '../../readstore/read-models.js'
import type { LiveInsights } from './live-insights.js'

export interface LiveRouteDeps {
  readonly models: ReadModels
  readonly liveInsights: LiveInsights | null
}

/**
 * `GET …/insights/live/`: the environment's queries kept live (their kind, the size of what each
 * keeps and the time of its newest event) and what the process's generations cost (events
 * applied, the time each event takes to update every live query). `null` generations where this
 * process keeps nothing live.
 */
export const liveRoutes: FastifyPluginAsync<LiveRouteDeps> = async (app, { models, liveInsights }) => {
  app.get('/insights/live/', { config: { scopes: ['insight:read'] }, schema: { params: ScopedParams } }, async (request) => {
    const environment = await environmentOf(request, models)
    return liveInsights?.status(environment.id) ?? { serving: null, building: null, wanted: 0, queries: [] }
  })
}
