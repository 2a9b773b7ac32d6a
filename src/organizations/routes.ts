import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { JsonObject } from '../eventlog/port.js'
import { principalOf } from '../auth/authenticate.js'
import { actorOf, commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { pageOf, paginated } from '../http/pagination.js'
import type { ZodTypeProvider } from '../http/zod.js'
import { PermissionDenied } from '../kernel/errors.js'
import { ADMIN_LEVEL } from './levels.js'
import { OrganizationParams, UpdateOrganizationBody } from './schemas.js'
import { organizationJson } from './serialize.js'
import { membersOf, organizationCommand, organizationOf, type OrganizationDeps } from './service.js'

const READ = { scopes: ['organization:read'] }
const WRITE = { scopes: ['organization:write'] }

/** Organizations: the caller's list, one by id or `@current`, and a PATCH of the name for admins and owners. */
export const organizationRoutes: FastifyPluginAsync<OrganizationDeps> = async (plain, deps) => {
  useFormBodies(plain)
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const { models } = deps

  const present = async (request: FastifyRequest, organization: JsonObject) => {
    const id = String(organization['id'])
    const [projects, environments, members] = await Promise.all([
      models.find('projects', { where: { organization_id: id }, orderBy: [['id', 'asc']] }),
      models.find('environments', { where: { organization: id }, orderBy: [['id', 'asc']] }),
      membersOf(models, id),
    ])
    return organizationJson(organization, { level: actorOf(request).level, projects, environments, memberCount: members.length })
  }

  app.get('/api/organizations/', { config: READ }, async (request) => {
    const principal = principalOf(request)
    const { organization_id: own } = principal.user
    const reachable = principal.scopedOrganizations === null || principal.scopedOrganizations.includes(own)
    const organization = reachable ? await models.get('organizations', own) : null
    const all = organization ? [await present(request, organization)] : []
    const page = pageOf(request.query)
    return paginated(request, page, all.length, all.slice(page.offset, page.offset + page.limit))
  })

  app.get('/api/organizations/:id/', { config: READ, schema: { params: OrganizationParams } }, async (request) =>
    present(request, await organizationOf(request, models, request.params.id, false)))

  app.patch('/api/organizations/:id/', { config: WRITE, schema: { params: OrganizationParams } }, async (request) => {
    const organization = await organizationOf(request, models, request.params.id, false)
    if (actorOf(request).level < ADMIN_LEVEL) throw new PermissionDenied('Your organization access level is insufficient.')
    const body = parseBody(UpdateOrganizationBody, request.body)
    if (body.name !== undefined) {
      await organizationCommand(deps, organization.id, {
        type: 'RenameOrganization', data: { organizationId: organization.id, name: body.name, at: new Date().toISOString() },
      }, commandContext(request))
    }
    return present(request, (await models.get('organizations', organization.id))!)
  })
}
