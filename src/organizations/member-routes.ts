import type { FastifyPluginAsync } from 'fastify'
import { principalOf } from '../auth/authenticate.js'
import { commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { pageOf, paginated } from '../http/pagination.js'
import type { ZodTypeProvider } from '../http/zod.js'
import { NotFound } from '../kernel/errors.js'
import { MemberParams, OrganizationParams, UpdateMemberBody } from './schemas.js'
import { memberJson } from './serialize.js'
import { joinedLevels, membersOf, organizationCommand, organizationOf, type OrganizationDeps } from './service.js'

const READ = { scopes: ['organization_member:read'] }
const WRITE = { scopes: ['organization_member:write'] }

/**
 * Members of an organization, keyed by user uuid: list, change a level (1 member, 8 admin,
 * 15 owner) and remove, with the rules of the organization's decider.
 */
export const memberRoutes: FastifyPluginAsync<OrganizationDeps> = async (plain, deps) => {
  useFormBodies(plain)
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const { models } = deps

  app.get('/api/organizations/:id/members/', { config: READ, schema: { params: OrganizationParams } }, async (request) => {
    const organization = await organizationOf(request, models, request.params.id, true)
    const members = await membersOf(models, organization.id)
    const page = pageOf(request.query)
    return paginated(request, page, members.length, members.slice(page.offset, page.offset + page.limit).map(memberJson))
  })

  app.patch('/api/organizations/:id/members/:user_uuid/', { config: WRITE, schema: { params: MemberParams } }, async (request) => {
    const organization = await organizationOf(request, models, request.params.id, true)
    const userUuid = request.params.user_uuid.toLowerCase()
    const body = parseBody(UpdateMemberBody, request.body)
    if (body.level !== undefined) {
      await organizationCommand(deps, organization.id, {
        type: 'ChangeMemberLevel',
        data: {
          organizationId: organization.id, actorUuid: principalOf(request).user.uuid, userUuid, level: body.level,
          joined: await joinedLevels(models, organization.id), at: new Date().toISOString(),
        },
      }, commandContext(request))
    }
    const member = await models.get('users', userUuid)
    if (!member || member['organization_id'] !== organization.id) throw new NotFound()
    return memberJson(member)
  })

  app.delete('/api/organizations/:id/members/:user_uuid/', { config: WRITE, schema: { params: MemberParams } }, async (request, reply) => {
    const organization = await organizationOf(request, models, request.params.id, true)
    await organizationCommand(deps, organization.id, {
      type: 'RemoveMember',
      data: {
        organizationId: organization.id, actorUuid: principalOf(request).user.uuid, userUuid: request.params.user_uuid.toLowerCase(),
        joined: await joinedLevels(models, organization.id), at: new Date().toISOString(),
      },
    }, commandContext(request))
    return reply.status(204).send()
  })
}
