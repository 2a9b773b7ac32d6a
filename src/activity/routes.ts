import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { EventLog } from '../eventlog/port.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { AuditedResource } from '../readstore/audited-resource.js'
import { IsoTime } from '../http/as-of.js'
import { environmentOf } from '../http/environment-scope.js'
import { pageOf, paginated } from '../http/pagination.js'
import type { ZodTypeProvider } from '../http/zod.js'
import { withUsers } from './activity-log.js'
import { environmentActivityLog, type ActivityFilter } from './environment-log.js'

export interface ActivityLogDeps {
  readonly log: EventLog
  readonly models: ReadModels
  /** The resources whose changes the log shows. */
  readonly audited: readonly AuditedResource[]
}

const Scope = z.string().min(1).max(100)
const PageNumber = z.string().regex(/^\d*$/, 'A valid integer is required.')

/** PostHog's filters: `scope`, `scopes=A,B`, `item_id`, `user` (a user's UUID), and a time range. */
export const ActivityLogQuery = z.looseObject({
  scope: Scope.optional(),
  scopes: z.string().max(500).optional(),
  item_id: z.string().max(200).optional(),
  user: z.string().max(200).optional(),
  start_date: IsoTime.optional(),
  end_date: IsoTime.optional(),
  limit: PageNumber.optional(),
  offset: PageNumber.optional(),
})
type ActivityLogQuery = z.infer<typeof ActivityLogQuery>

const filterOf = (query: ActivityLogQuery): ActivityFilter => {
  const scopes = [...(query.scope === undefined ? [] : [query.scope]), ...(query.scopes?.split(',').map((s) => s.trim()).filter((s) => s !== '') ?? [])]
  return {
    scopes: scopes.length > 0 ? scopes : null,
    itemId: query.item_id ?? null,
    user: query.user ?? null,
    from: query.start_date === undefined ? null : Date.parse(query.start_date),
    to: query.end_date === undefined ? null : Date.parse(query.end_date),
  }
}

/** `/activity_log/`: every management change of the environment, newest first, read from the log. */
export const activityLogRoutes: FastifyPluginAsync<ActivityLogDeps> = async (app, deps) => {
  app.withTypeProvider<ZodTypeProvider>().get('/activity_log/', {
    config: { scopes: ['activity_log:read'] },
    schema: { querystring: ActivityLogQuery },
  }, async (request) => {
    const environment = await environmentOf(request, deps.models)
    const entries = await environmentActivityLog(deps, environment, filterOf(request.query))
    const page = pageOf(request.query)
    return paginated(request, page, entries.length, await withUsers(deps.models, entries.slice(page.offset, page.offset + page.limit)))
  })
}
