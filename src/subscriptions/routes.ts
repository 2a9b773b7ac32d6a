import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { EventLog } from '../eventlog/port.js'
import { activityPage } from '../activity/activity-log.js'
import { basicUsers } from '../accounts/user-lookup.js'
import { commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { environmentOf, methodNotAllowed } from '../http/environment-scope.js'
import type { Environment } from '../readstore/environment.js'
import { pageOf, paginated } from '../http/pagination.js'
import { NotFound, ValidationFailed } from '../kernel/errors.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { allocateId } from '../kernel/sequence.js'
import type { ReadModels } from '../readstore/read-models.js'
import { subscriptionActivity } from './activity.js'
import { subscriptionDecider, type SubscriptionCommand } from './decider.js'
import { subscriptionStream, type SubscriptionFields } from './events.js'
import { createSubscriptionBody, SubscriptionListResponse, SubscriptionResponse, updateSubscriptionBody } from './schemas.js'
import { subscriptionJson } from './serialize.js'
import { evolveSubscription, type Subscription } from './state.js'
import { stateAsOf } from '../eventlog/as-of.js'
import { AsOfQuery, DetailParams, cutoffAt } from '../http/as-of.js'
import { queryOf, ScopedIdParams, ScopedParams, type ZodTypeProvider } from '../http/zod.js'
import type { Channels } from '../delivery/targets.js'
import { DeliveryListResponse, DeliveryResponse, deliveryJson } from '../delivery/deliveries-json.js'
import { testDelivery } from '../delivery/test-delivery.js'
import { webhookSecretOf } from '../delivery/webhook-secret.js'

export interface SubscriptionDeps {
  readonly log: EventLog
  readonly models: ReadModels
  readonly delivery: { readonly channels: Channels; readonly publicUrl: string }
}

const READ = { scopes: ['subscription:read'] }
const WRITE = { scopes: ['subscription:write'] }

/** A subscription delivers a live dashboard or insight of its own environment. */
const checkTarget = async (models: ReadModels, environment: Environment, fields: Pick<SubscriptionFields, 'dashboard' | 'insight'>) => {
  if (fields.dashboard === null && fields.insight === null) throw new ValidationFailed('Either dashboard or insight is required for an export.')
  if (fields.dashboard !== null) {
    const dashboard = await models.get('dashboards', String(fields.dashboard))
    if (!dashboard || dashboard.environment_id !== environment.id || dashboard.deleted) {
      throw new ValidationFailed('This dashboard does not belong to your team.', 'dashboard')
    }
  }
  if (fields.insight !== null) {
    const insight = await models.get('insights', String(fields.insight))
    if (!insight || insight.environment_id !== environment.id || insight.deleted) {
      throw new ValidationFailed('This insight does not belong to your team.', 'insight')
    }
  }
}

const findSubscription = async (models: ReadModels, environment: Environment, id: string): Promise<Subscription> => {
  const subscription = /^\d+$/.test(id) ? await models.get('subscriptions', String(Number(id))) : null
  if (!subscription || subscription.environment_id !== environment.id) throw new NotFound()
  return subscription
}

/** Subscriptions of one environment: list, create, get, PATCH (soft delete and restore), 405 on DELETE, activity. */
export const subscriptionRoutes: FastifyPluginAsync<SubscriptionDeps> = async (app, deps) => {
  useFormBodies(app)
  const { models } = deps
  const respond = async (subscription: Subscription) => subscriptionJson(subscription, await basicUsers(models, [subscription.created_by]))
  const run = async (id: number, command: SubscriptionCommand, context: CommandContext): Promise<Subscription> => {
    const result = await handleCommand(deps.log, subscriptionDecider, subscriptionStream(id), command, context)
    const subscription = await models.settled(result.position, 'subscriptions', String(id))
    if (!subscription) throw new NotFound()
    return subscription
  }

  app.withTypeProvider<ZodTypeProvider>().get('/subscriptions/', {
    config: READ, schema: { params: ScopedParams, querystring: queryOf('deleted', 'dashboard', 'insight'), response: { 200: SubscriptionListResponse } },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const { query } = request
    const all = await models.find('subscriptions', { where: { environment_id: environment.id }, orderBy: [['id', 'asc']] })
    const wantDeleted = query.deleted === 'true'
    const listed = all
      .filter((s) => s.deleted === wantDeleted)
      .filter((s) => query.dashboard === undefined || String(s.dashboard) === query.dashboard)
      .filter((s) => query.insight === undefined || String(s.insight) === query.insight)
    const page = pageOf(request.query)
    const slice = listed.slice(page.offset, page.offset + page.limit)
    const users = await basicUsers(models, slice.map((s) => s.created_by))
    return paginated(request, page, listed.length, slice.map((s) => subscriptionJson(s, users)))
  })

  app.post('/subscriptions/', { config: WRITE, schema: { params: ScopedParams, response: { 201: SubscriptionResponse } } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const body = parseBody(createSubscriptionBody, request.body)
    const fields: SubscriptionFields = {
      dashboard: body.dashboard ?? null, insight: body.insight ?? null, target_type: body.target_type, target_value: body.target_value,
      frequency: body.frequency, interval: body.interval ?? 1, byweekday: body.byweekday ?? null, bysetpos: body.bysetpos ?? null,
      count: body.count ?? null, start_date: body.start_date, until_date: body.until_date ?? null, title: body.title ?? null,
    }
    await checkTarget(models, environment, fields)
    const context = commandContext(request)
    // A webhook's receiver needs the signing secret before the first delivery arrives.
    if (fields.target_type === 'webhook') await webhookSecretOf(deps.log, environment.id, context)
    const id = await allocateId(deps.log, 'subscription', context)
    const created = await run(id, {
      type: 'CreateSubscription',
      data: { subscriptionId: id, environmentId: environment.id, fields, createdBy: context.actor, at: context.now },
      inviteMessage: body.invite_message ?? null,
    }, context)
    const final = body.deleted === true
      ? await run(id, { type: 'UpdateSubscription', changes: {}, deleted: true, inviteMessage: null, at: context.now }, context)
      : created
    return reply.status(201).send(await respond(final))
  })

  app.withTypeProvider<ZodTypeProvider>().get('/subscriptions/:id/', {
    config: READ, schema: { params: DetailParams, querystring: AsOfQuery, response: { 200: SubscriptionResponse } },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const current = await findSubscription(models, environment, request.params.id)
    const { as_of: asOf } = request.query
    if (asOf === undefined) return respond(current)
    const past = await stateAsOf(deps.log, subscriptionStream(current.id), evolveSubscription, null, cutoffAt(asOf))
    if (!past) throw new NotFound()
    return respond(past)
  })

  app.patch<{ Params: { id: string } }>('/subscriptions/:id/', {
    config: WRITE, schema: { params: ScopedIdParams, response: { 200: SubscriptionResponse } },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const subscription = await findSubscription(models, environment, request.params.id)
    const { deleted, invite_message: inviteMessage, ...changes } = parseBody(updateSubscriptionBody, request.body)
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<SubscriptionFields>
    if ('dashboard' in defined || 'insight' in defined) {
      await checkTarget(models, environment, { dashboard: defined.dashboard ?? subscription.dashboard, insight: defined.insight ?? subscription.insight })
    }
    const context = commandContext(request)
    if (defined.target_type === 'webhook') await webhookSecretOf(deps.log, environment.id, context)
    return respond(await run(subscription.id, {
      type: 'UpdateSubscription', changes: defined, deleted, inviteMessage: inviteMessage ?? null, at: context.now,
    }, context))
  })

  app.delete<{ Params: { id: string } }>('/subscriptions/:id/', { config: WRITE, schema: { params: ScopedIdParams } }, methodNotAllowed(models))

  app.post<{ Params: { id: string } }>('/subscriptions/:id/test-delivery/', {
    config: WRITE, schema: { params: ScopedIdParams, response: { 200: DeliveryResponse } },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const subscription = await findSubscription(models, environment, request.params.id)
    if (subscription.deleted) throw new NotFound()
    const context = commandContext(request)
    const { position, id } = await testDelivery({ log: deps.log, models, ...deps.delivery, clock: () => new Date() }, subscription, context)
    const record = await models.settled(position, 'subscription_deliveries', id)
    if (!record) throw new NotFound()
    return deliveryJson(record)
  })

  app.get<{ Params: { id: string } }>('/subscriptions/:id/deliveries/', {
    config: READ, schema: { params: ScopedIdParams, response: { 200: DeliveryListResponse } },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const subscription = await findSubscription(models, environment, request.params.id)
    const where = { subscription_id: subscription.id }
    const page = pageOf(request.query)
    const [count, records] = await Promise.all([
      models.count('subscription_deliveries', where),
      models.find('subscription_deliveries', { where, orderBy: [['sequence', 'desc']], limit: page.offset + page.limit }),
    ])
    return paginated(request, page, count, records.slice(page.offset).map(deliveryJson))
  })

  app.get<{ Params: { id: string } }>('/subscriptions/:id/activity/', { config: READ, schema: { params: ScopedIdParams } }, async (request) => {
    const environment = await environmentOf(request, models)
    const subscription = await findSubscription(models, environment, request.params.id)
    return activityPage(request, deps, subscriptionActivity, subscriptionStream(subscription.id), String(subscription.id))
  })
}
