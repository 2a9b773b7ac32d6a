import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import { basicUsers } from '../accounts/user-lookup.js'
import { actorOf, commandContext } from '../http/command-context.js'
import { parseBody } from '../http/drf.js'
import { environmentOf, methodNotAllowed } from '../http/environment-scope.js'
import { NotFound, PermissionDenied } from '../kernel/errors.js'
import { randomUuid } from '../kernel/ids.js'
import { canEdit } from './permissions.js'
import { CollaboratorListResponse, CollaboratorResponse } from './schemas.js'
import { collaboratorJson } from './serialize.js'
import { dashboardCommand, liveDashboard, type DashboardDeps } from './service.js'
import type { Collaborator } from './events.js'
import type { Dashboard } from './state.js'

const addBody = z.object({
  user_uuid: z.uuid({ error: 'Must be a valid UUID.' }),
  level: z.preprocess((value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value), z.literal([21, 37])),
})

const Params = z.object({ project_id: z.string(), dashboard_id: z.string() })
type Params = z.infer<typeof Params>
const MemberParams = z.object({ project_id: z.string(), dashboard_id: z.string(), user_uuid: z.string() })
type MemberParams = z.infer<typeof MemberParams>

/** Dashboard collaborators: a plain array, added by user uuid, removed by user uuid. */
export const collaboratorRoutes: FastifyPluginAsync<DashboardDeps> = async (app, deps) => {
  const { models } = deps
  const dashboardOf = async (request: Parameters<typeof environmentOf>[0], id: string): Promise<Dashboard> => {
    const environment = await environmentOf(request, models)
    try {
      return await liveDashboard(models, environment, id)
    } catch (error) {
      if (error instanceof NotFound) throw new NotFound('Dashboard not found.')
      throw error
    }
  }
  const editableBy = (dashboard: Dashboard, request: Parameters<typeof actorOf>[0]) => {
    const actor = actorOf(request)
    if (!canEdit(dashboard, actor)) throw new PermissionDenied("You don't have edit permissions for this dashboard.")
    return actor
  }

  app.get<{ Params: Params }>('/dashboards/:dashboard_id/collaborators/', {
    schema: { params: Params, response: { 200: CollaboratorListResponse } }, config: { scopes: ['dashboard:read'] },
  }, async (request) => {
    const dashboard = await dashboardOf(request, request.params.dashboard_id)
    const users = await basicUsers(models, dashboard.collaborators.map((c) => c.user_uuid))
    return dashboard.collaborators.map((c) => collaboratorJson(dashboard, c, users))
  })

  app.post<{ Params: Params }>('/dashboards/:dashboard_id/collaborators/', {
    schema: { params: Params, response: { 201: CollaboratorResponse } }, config: { scopes: ['dashboard:write'] },
  }, async (request, reply) => {
    const dashboard = await dashboardOf(request, request.params.dashboard_id)
    const actor = editableBy(dashboard, request)
    const body = parseBody(addBody, request.body)
    const target = await models.get('users', body.user_uuid)
    const environment = await environmentOf(request, models)
    const collaboratorId = randomUuid()
    const at = new Date().toISOString()
    const updated = await dashboardCommand(deps, dashboard, {
      type: 'AddCollaborator', actor, organizationId: environment.organization, level: body.level, collaboratorId,
      target: target && { uuid: body.user_uuid, organizationId: String(target['organization_id']), level: Number(target['membership_level']) },
      at,
    }, commandContext(request))
    // The answer is the collaborator this command added, even when a concurrent removal of the
    // user is already in the read model (the decider adds exactly this one, or refuses).
    const added: Collaborator = updated.collaborators.find((c) => c.id === collaboratorId) ??
      { id: collaboratorId, user_uuid: body.user_uuid, level: body.level, added_at: at, updated_at: at }
    return reply.status(201).send(collaboratorJson(updated, added, await basicUsers(models, [added.user_uuid])))
  })

  app.delete<{ Params: MemberParams }>('/dashboards/:dashboard_id/collaborators/:user_uuid/', { schema: { params: MemberParams }, config: { scopes: ['dashboard:write'] } }, async (request, reply) => {
    const dashboard = await dashboardOf(request, request.params.dashboard_id)
    const actor = editableBy(dashboard, request)
    await dashboardCommand(deps, dashboard, { type: 'RemoveCollaborator', actor, userUuid: request.params.user_uuid, at: new Date().toISOString() }, commandContext(request))
    return reply.status(204).send()
  })

  app.patch('/dashboards/:dashboard_id/collaborators/:user_uuid/', { schema: { params: MemberParams }, config: { scopes: ['dashboard:write'] } }, methodNotAllowed(models, true))
  app.put('/dashboards/:dashboard_id/collaborators/:user_uuid/', { schema: { params: MemberParams }, config: { scopes: ['dashboard:write'] } }, methodNotAllowed(models, true))
}
