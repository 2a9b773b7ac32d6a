import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import { environmentOf } from '../../http/environment-scope.js'
import { ScopedParams, type ZodTypeProvider } from '../../http/zod.js'
import type { ReadModels } from '../../readstore/read-models.js'
import { QueryParseError } from '../errors.js'
import { readQueryRequest } from './query-request.js'
import { queryServiceOf } from './query-service.js'

export interface QueryRouteDeps {
  readonly models: ReadModels
}

const READ = { scopes: ['query:read'] }
const QueryIdParams = ScopedParams.extend({ query_id: z.string().min(1).max(200) })
const KindParams = ScopedParams.extend({ kind: z.string().min(1).max(100) })

/** `/query/`: PostHog's query endpoint over the read models, with its cache and background runs. */
export const queryRoutes: FastifyPluginAsync<QueryRouteDeps> = async (plain, { models }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const queries = queryServiceOf(models)

  app.post('/query/', { config: READ, schema: { params: ScopedParams } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const { node, mode, clientQueryId } = readQueryRequest(request.body)
    const answer = await queries.answer(environment, node, mode, clientQueryId)
    return reply.code(answer.status).send(answer.body)
  })

  app.post('/query/:kind/', { config: READ, schema: { params: KindParams } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const { node, mode, clientQueryId } = readQueryRequest(request.body)
    if (node.kind !== request.params.kind) throw new QueryParseError(`Query kind mismatch: ${request.params.kind} != ${node.kind}`)
    const answer = await queries.answer(environment, node, mode, clientQueryId)
    return reply.code(answer.status).send(answer.body)
  })

  app.get('/query/:query_id/', { config: READ, schema: { params: QueryIdParams } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const answer = queries.status(environment.id, request.params.query_id)
    return reply.code(answer.status).send(answer.body)
  })

  app.delete('/query/:query_id/', { config: READ, schema: { params: QueryIdParams } }, async (request) => {
    const environment = await environmentOf(request, models)
    return queries.cancel(environment.id, request.params.query_id)
  })
}
