import type { FastifyPluginAsync } from 'fastify'
import { basicUsers } from '../accounts/user-lookup.js'
import { normalEmail } from '../accounts/user-accounts.js'
import { actorOf, commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { pageOf, paginated } from '../http/pagination.js'
import type { ZodTypeProvider } from '../http/zod.js'
import { NotFound, PermissionDenied, ValidationFailed } from '../kernel/errors.js'
import { handleCommand } from '../kernel/handle-command.js'
import { newUlid } from '../kernel/ids.js'
import { OrganizationParams } from '../organizations/schemas.js'
import { organizationOf, type OrganizationDeps } from '../organizations/service.js'
import { inviteMail } from './invite-mail.js'
import { inviteDecider, type InviteCommand } from './decider.js'
import { INVITE_DAYS_VALIDITY, inviteStream } from './events.js'
import { CreateInviteBody, InviteParams } from './schemas.js'
import { inviteJson } from './serialize.js'

const READ = { scopes: ['organization_member:read'] }
const WRITE = { scopes: ['organization_member:write'] }
const DAY_MS = 86_400_000

/**
 * Invites to an organization: list, create, delete. Any member may invite, at most at their own
 * level; an invite is accepted with `hedgelog invites accept`, since Hedgelog has no sign-up page.
 */
export const inviteRoutes: FastifyPluginAsync<OrganizationDeps> = async (plain, deps) => {
  useFormBodies(plain)
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const { models, log } = deps

  const run = async (inviteId: string, command: InviteCommand, context: ReturnType<typeof commandContext>) => {
    const result = await handleCommand(log, inviteDecider, inviteStream(inviteId), command, context)
    if (result.position) await models.waitFor(result.position, ['invites'])
  }

  app.get('/api/organizations/:id/invites/', { config: READ, schema: { params: OrganizationParams } }, async (request) => {
    const organization = await organizationOf(request, models, request.params.id, true)
    const invites = await models.find('invites', { where: { organization_id: organization.id }, orderBy: [['created_at', 'desc']] })
    const page = pageOf(request.query)
    const slice = invites.slice(page.offset, page.offset + page.limit)
    const users = await basicUsers(models, slice.map((i) => String(i['created_by'])))
    const now = new Date().toISOString()
    return paginated(request, page, invites.length, slice.map((i) => inviteJson(i, users, now)))
  })

  app.post('/api/organizations/:id/invites/', { config: WRITE, schema: { params: OrganizationParams } }, async (request, reply) => {
    const organization = await organizationOf(request, models, request.params.id, true)
    const body = parseBody(CreateInviteBody, request.body)
    const actor = actorOf(request)
    if (body.level > actor.level) throw new PermissionDenied('You cannot invite a user with a higher permission level than your own.')
    const email = normalEmail(body.target_email)
    const [member] = await models.find('users', { where: { organization_id: organization.id, email }, limit: 1 })
    if (member) throw new ValidationFailed('A user with this email address already belongs to the organization.', 'target_email')
    const context = commandContext(request)
    const inviteId = newUlid()
    // As PostHog: an attempt is made, and recorded, only when e-mail is set up and the caller did not say send_email: false.
    const mailer = body.send_email ? deps.mailer : undefined
    await run(inviteId, {
      type: 'CreateInvite',
      data: {
        inviteId, organizationId: organization.id, email, firstName: body.first_name, level: body.level, message: body.message,
        createdBy: actor.uuid, expiresAt: new Date(Date.parse(context.now) + INVITE_DAYS_VALIDITY * DAY_MS).toISOString(), at: context.now,
        emailingAttemptMade: mailer !== undefined,
      },
    }, context)
    const invite = (await models.get('invites', inviteId))!
    const inviter = await basicUsers(models, [actor.uuid])
    if (mailer) {
      const from = inviter.get(actor.uuid)
      // Sent after the answer, as PostHog sends it; a failure is logged, the invite stands.
      void mailer.send(inviteMail({
        inviteId, email, firstName: body.first_name ?? '', organizationName: String(organization['name'] ?? ''),
        inviterName: String(from?.['first_name'] || from?.['email'] || 'A member'), message: body.message ?? null, expiresAt: String(invite['expires_at']),
      })).catch((error: unknown) => request.log.error({ err: error, invite: inviteId }, 'invite e-mail not sent'))
    }
    return reply.status(201).send(inviteJson(invite, inviter, context.now))
  })

  app.delete('/api/organizations/:id/invites/:invite_id/', { config: WRITE, schema: { params: InviteParams } }, async (request, reply) => {
    const organization = await organizationOf(request, models, request.params.id, true)
    const invite = await models.get('invites', request.params.invite_id)
    if (!invite || invite['organization_id'] !== organization.id) throw new NotFound()
    await run(request.params.invite_id, { type: 'DeleteInvite', data: { inviteId: request.params.invite_id, at: new Date().toISOString() } }, commandContext(request))
    return reply.status(204).send()
  })
}
