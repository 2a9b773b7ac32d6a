import { randomBytes } from 'node:crypto'
import type { EventLog, Position } from '../eventlog/port.js'
import type { Actor } from '../dashboards/permissions.js'
import { normaliseTags } from '../dashboards/schemas.js'
import { completing } from '../kernel/completing.js'
import { crashPoint } from '../kernel/crash-points.js'
import { NotFound, ResultNotReadable } from '../kernel/errors.js'
import { handleCommand, readAggregate, type CommandContext } from '../kernel/handle-command.js'
import { randomToken } from '../kernel/ids.js'
import { pickDefined } from '../kernel/pick-defined.js'
import { allocateId } from '../kernel/sequence.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import { completeDashboardsChange, planDashboards, type DashboardsRequest } from './dashboard-links.js'
import { insightDecider, type InsightCommand } from './decider.js'
import type { InsightDocument } from './document.js'
import { insightStream, type InsightEvent, type InsightFields } from './events.js'
import { validateInsightQuery } from './query-check.js'
import type { InsightResults } from './results.js'
import type { InsightBody } from './schemas.js'

export interface InsightDeps {
  readonly log: EventLog
  readonly models: ReadModels
  /** The results of an insight's query; `notComputedResults` unless the service was given another. */
  readonly insightResults: InsightResults
}

const SHORT_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** Eight random letters and digits, as PostHog's `generate_short_id`; bytes past 247 are skipped so each character is equally likely. */
export const newShortId = (): string => {
  let id = ''
  while (id.length < 8) {
    for (const byte of randomBytes(16)) {
      if (byte < 248 && id.length < 8) id += SHORT_ID_ALPHABET[byte % 62]
    }
  }
  return id
}

/**
 * An insight of this environment by its numeric id or its short id, deleted or not; anything
 * else is 404. A numeric text is tried as an id first, then as a short id, as PostHog does.
 */
export const findInsight = async (models: ReadModels, environment: Environment, key: string): Promise<InsightDocument> => {
  if (/^\d{1,15}$/.test(key)) {
    const insight = await models.get('insights', String(Number(key)))
    if (insight && insight.environment_id === environment.id) return insight
  }
  if (/^[A-Za-z0-9]{1,64}$/.test(key)) {
    const [insight] = await models.find('insights', { where: { environment_id: environment.id, short_id: key }, limit: 1 })
    if (insight) return insight
  }
  throw new NotFound()
}

export const liveInsight = async (models: ReadModels, environment: Environment, key: string): Promise<InsightDocument> => {
  const insight = await findInsight(models, environment, key)
  if (insight.deleted) throw new NotFound()
  return insight
}

/**
 * The insight once its read model reflects the command, and the dashboards' read model the
 * tiles it put on them (read-your-writes on both; 503 when either has not caught up, since the
 * change stands).
 */
const settledInsight = async (deps: InsightDeps, id: number, position: Position | null, tiles: Position | null): Promise<InsightDocument> => {
  if (tiles && !(await deps.models.waitFor(tiles, ['dashboards']))) throw new ResultNotReadable()
  const insight = await deps.models.settled(position, 'insights', String(id))
  if (!insight) throw new NotFound()
  return insight
}

/** The change of dashboards a command recorded earlier, found by its id (a retry finds what the first run decided). */
const recordedChange = async (log: EventLog, id: number, changeId: string | null): Promise<InsightEvent[]> => {
  if (changeId === null) return []
  const { events } = await readAggregate<InsightEvent>(log, insightStream(id))
  return events.filter((event) => event.type === 'InsightDashboardsChanged' && event.data.changeId === changeId)
}

/**
 * Runs an insight command that may change its dashboards. The insight's stream decides and
 * records the whole change; each dashboard then completes its part, also when the command is a
 * retry of one that landed (completing twice writes nothing new). When the process dies in
 * between, the scheduler's `finishCommands` job completes it from the log.
 */
const run = async (deps: InsightDeps, id: number, command: InsightCommand, context: CommandContext): Promise<InsightDocument> => {
  const result = await handleCommand(deps.log, insightDecider, insightStream(id), command, context)
  const changeId = 'dashboards' in command ? command.dashboards.changeId : null
  const decided = result.replayed ? await recordedChange(deps.log, id, changeId) : result.events
  if (decided.some((event) => event.type === 'InsightDashboardsChanged')) crashPoint('insight-dashboards:decided')
  const tiles = await completing(() => completeDashboardsChange(deps, id, decided, context))
  return settledInsight(deps, id, result.position, tiles)
}

const dashboardsRequest = (ids: readonly number[] | undefined): DashboardsRequest =>
  ids === undefined ? { kind: 'unchanged' } : { kind: 'set', ids }

export const createInsight = async (
  deps: InsightDeps, environment: Environment, body: InsightBody, actor: Actor, context: CommandContext,
): Promise<InsightDocument> => {
  const query = validateInsightQuery(body.query)
  const id = await allocateId(deps.log, 'insight', context)
  const deleted = body.deleted === true
  const dashboards = await planDashboards(deps, environment, id, deleted ? { kind: 'unchanged' } : dashboardsRequest(body.dashboards), actor, context)
  const fields: InsightFields = {
    name: body.name ?? null,
    derived_name: body.derived_name ?? null,
    description: body.description ?? null,
    query,
    filters: body.filters ?? {},
    order: body.order ?? null,
    tags: normaliseTags(body.tags ?? []),
    favorited: body.favorited ?? false,
    saved: body.saved ?? false,
  }
  return run(deps, id, {
    type: 'CreateInsight',
    data: {
      ...fields, insightId: id, environmentId: environment.id, shortId: newShortId(), accessToken: randomToken('', 22),
      createdBy: context.actor, at: context.now,
    },
    dashboards,
    deleted,
  }, context)
}

/** The fields a PATCH sets; `saved` becomes true when the PATCH does not send it, as PostHog's newest API does. */
const changedFields = (body: InsightBody): Partial<InsightFields> => {
  const changes: Partial<InsightFields> = pickDefined(body, ['name', 'derived_name', 'description', 'filters', 'order', 'favorited'])
  if (body.query !== undefined) changes.query = validateInsightQuery(body.query)
  if (body.tags !== undefined) changes.tags = normaliseTags(body.tags)
  changes.saved = body.saved ?? true
  return changes
}

export const updateInsight = async (
  deps: InsightDeps, environment: Environment, insight: InsightDocument, body: InsightBody, actor: Actor, context: CommandContext,
): Promise<InsightDocument> => {
  // A deleted insight is only reachable by a PATCH that restores it.
  if (insight.deleted && body.deleted !== false) throw new NotFound()
  const changes = changedFields(body)
  // Deleting an insight takes its tiles off every dashboard; restoring it puts none back.
  const deleting = body.deleted === true && !insight.deleted
  const request: DashboardsRequest = deleting ? { kind: 'none' } : dashboardsRequest(body.dashboards)
  const dashboards = await planDashboards(deps, environment, insight.id, request, actor, context)
  return run(deps, insight.id, { type: 'UpdateInsight', changes, deleted: body.deleted, dashboards, actor: context.actor, at: context.now }, context)
}

export const setInsightSharing = async (deps: InsightDeps, insight: InsightDocument, enabled: boolean, context: CommandContext): Promise<InsightDocument> =>
  run(deps, insight.id, { type: 'SetInsightSharing', enabled, at: context.now }, context)
