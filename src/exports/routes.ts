import type { FastifyPluginAsync } from 'fastify'
import { commandContext } from '../http/command-context.js'
import { useFormBodies } from '../http/drf.js'
import { environmentOf } from '../http/environment-scope.js'
import { pageOf, paginated, paginatedResponse } from '../http/pagination.js'
import { queryOf, ScopedIdParams, ScopedParams, type ZodTypeProvider } from '../http/zod.js'
import { principalOf } from '../auth/authenticate.js'
import type { ExportDeps } from './deps.js'
import { EXPORT_FORMATS } from './events.js'
import { sendContent } from './content-reply.js'
import { readExportRequest } from './request.js'
import { ExportedAssetResponse, exportedAssetJson } from './serialize.js'
import { createExport, exportContent, findExport, isLive } from './service.js'

const READ = { scopes: ['export:read'] }
const WRITE = { scopes: ['export:write'] }
const ListQuery = queryOf('export_format', 'context_path', 'limit', 'offset')
const ONE = { 200: ExportedAssetResponse }
const CREATED = { 201: ExportedAssetResponse }
const PAGE = { 200: paginatedResponse(ExportedAssetResponse) }

/**
 * Exports of one environment: create (drawn at once), list the caller's own (PostHog's
 * `export_format` and `context_path` filters, newest first), get one, and its content.
 */
export const exportRoutes: FastifyPluginAsync<ExportDeps> = async (plain, deps) => {
  useFormBodies(plain)
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const { models } = deps

  app.post('/exports/', { config: WRITE, schema: { params: ScopedParams, response: CREATED } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const exportRequest = await readExportRequest(models, environment, request.body)
    const asset = await createExport(deps, environment, exportRequest, commandContext(request))
    return reply.status(201).send(exportedAssetJson(asset))
  })

  app.get('/exports/', { config: READ, schema: { params: ScopedParams, querystring: ListQuery, response: PAGE } }, async (request) => {
    const environment = await environmentOf(request, models)
    const now = new Date()
    const { export_format: format, context_path: contextPath } = request.query
    const own = await models.find('exported_assets', { where: { environment_id: environment.id, created_by: principalOf(request).user.uuid } })
    const listed = own
      .filter((asset) => isLive(asset, now))
      .filter((asset) => !format || !(EXPORT_FORMATS as readonly string[]).includes(format) || asset.export_format === format)
      .filter((asset) => !contextPath || String(asset.export_context?.['path'] ?? '').toLowerCase().includes(contextPath.toLowerCase()))
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id)
    const page = pageOf(request.query)
    return paginated(request, page, listed.length, listed.slice(page.offset, page.offset + page.limit).map(exportedAssetJson))
  })

  app.get('/exports/:id/', { config: READ, schema: { params: ScopedIdParams, response: ONE } }, async (request) => {
    const environment = await environmentOf(request, models)
    return exportedAssetJson(await findExport(models, environment, request.params.id, new Date()))
  })

  app.get('/exports/:id/content/', { config: READ, schema: { params: ScopedIdParams } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const asset = await findExport(models, environment, request.params.id, new Date())
    return sendContent(reply, asset, await exportContent(models, asset))
  })
}

