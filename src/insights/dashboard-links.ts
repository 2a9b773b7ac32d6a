import type { EventLog, Position } from '../eventlog/port.js'
import { comparePositions } from '../eventlog/port.js'
import { dashboardDecider } from '../dashboards/decider.js'
import type { DashboardDocument } from '../dashboards/document.js'
import { dashboardStream, type Tile } from '../dashboards/events.js'
import { checkRoomForTiles } from '../dashboards/limits.js'
import { canEdit, type Actor } from '../dashboards/permissions.js'
import { commandEventId } from '../kernel/command-ids.js'
import { completionContext } from '../kernel/completing.js'
import { PermissionDenied, ValidationFailed } from '../kernel/errors.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { allocateId } from '../kernel/sequence.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { DashboardsChange } from './decider.js'
import type { InsightDashboardsChanged, InsightEvent } from './events.js'
import { tilesOfInsight } from './tiles.js'

/** One dashboard's part of an insight's change of dashboards: put the insight's tile on (`tile`) or take it off (`tile` null). */
export interface InsightTileStep {
  readonly changeId: string
  readonly insightId: number
  readonly dashboardId: number
  readonly tile: Tile | null
  readonly actor: string
}

/** An insight tile as it first comes onto a dashboard. */
export const insightTile = (insightId: number, tileId: number): Tile => ({
  id: tileId, text: null, insight: insightId, color: null, layouts: {}, show_description: null, transparent_background: null, deleted: false,
})

/** What a request asks of an insight's dashboards: the set it should be on, or off every one (the insight is being deleted). */
export type DashboardsRequest = { readonly kind: 'set'; readonly ids: readonly number[] } | { readonly kind: 'none' } | { readonly kind: 'unchanged' }

/** A requested dashboard: 400 when it does not exist or is another environment's; null (ignored) when deleted. */
const requestedDashboard = async (models: ReadModels, environment: Environment, id: number): Promise<DashboardDocument | null> => {
  const dashboard = Number.isSafeInteger(id) && id > 0 ? await models.get('dashboards', String(id)) : null
  if (!dashboard) throw new ValidationFailed(`Invalid pk "${id}" - object does not exist.`, 'dashboards', 'does_not_exist')
  if (dashboard.environment_id !== environment.id) throw new ValidationFailed('Dashboard not found')
  return dashboard.deleted ? null : dashboard
}

const checkEditable = (dashboard: DashboardDocument, actor: Actor, verb: 'add insights to' | 'remove insights from'): void => {
  if (!canEdit(dashboard, actor)) throw new PermissionDenied(`You don't have permission to ${verb} dashboard: ${dashboard.id}`)
}

/**
 * What an insight's command changes of its dashboards, found from the dashboards' read models:
 * tiles to put on dashboards it is not live on (the tile it had there when there is one, so a
 * tile taken off comes back, otherwise a new id), and the dashboards to take it off. The caller
 * must be able to edit every dashboard a change of the set touches, and each must have room.
 */
export const planDashboards = async (
  deps: { log: EventLog; models: ReadModels }, environment: Environment, insightId: number, request: DashboardsRequest,
  actor: Actor, context: CommandContext,
): Promise<DashboardsChange> => {
  const changeId = commandEventId(context.commandId ?? context.correlationId, `insight-dashboards-${insightId}`, 0)
  if (request.kind === 'unchanged') return { changeId, added: [], removed: [] }
  const current = new Set((await tilesOfInsight(deps.models, environment.id, insightId)).map((tile) => tile.dashboard_id))
  const wanted = new Map<number, DashboardDocument>()
  for (const id of request.kind === 'set' ? new Set(request.ids) : []) {
    const dashboard = await requestedDashboard(deps.models, environment, id)
    if (dashboard) wanted.set(id, dashboard)
  }
  const removed = [...current].filter((id) => !wanted.has(id)).sort((a, b) => a - b)
  // A deleted insight leaves every dashboard, whoever may edit them, as in PostHog.
  for (const id of request.kind === 'set' ? removed : []) {
    const dashboard = await deps.models.get('dashboards', String(id))
    if (dashboard) checkEditable(dashboard, actor, 'remove insights from')
  }
  const adding = [...wanted.values()].filter((dashboard) => !current.has(dashboard.id))
  for (const dashboard of adding) {
    checkEditable(dashboard, actor, 'add insights to')
    checkRoomForTiles(dashboard, 1)
  }
  const added = []
  for (const dashboard of adding) {
    const earlier = dashboard.tiles.find((tile) => tile.insight === insightId)
    added.push({ dashboardId: dashboard.id, tileId: earlier?.id ?? await allocateId(deps.log, 'dashboard_tile', context) })
  }
  return { changeId, added, removed }
}

/** The dashboards' parts of a change the insight recorded. */
export const tileSteps = (insightId: number, change: InsightDashboardsChanged['data'], actor: string): InsightTileStep[] => [
  ...change.added.map(({ dashboardId, tileId }) => ({ changeId: change.changeId, insightId, dashboardId, tile: insightTile(insightId, tileId), actor })),
  ...change.removed.map((dashboardId) => ({ changeId: change.changeId, insightId, dashboardId, tile: null, actor })),
]

/**
 * Writes one dashboard's part of an insight's change. Safe to run any number of times, at once or
 * after a restart: every run writes the same event id, so the dashboard records it once.
 */
export const completeInsightTile = (deps: { log: EventLog }, step: InsightTileStep, now = new Date().toISOString()) => {
  const { changeId, insightId, dashboardId, tile } = step
  const command = tile === null
    ? { type: 'RemoveInsightTile' as const, insightId, changeId, at: now }
    : { type: 'PlaceInsightTile' as const, insightId, tile, changeId, at: now }
  return handleCommand(deps.log, dashboardDecider, dashboardStream(dashboardId), command, completionContext(step.actor, now, `insight-tile-${changeId}-${dashboardId}`))
}

/** Completes on each dashboard the change a command's events decided; the last position written, or null. */
export const completeDashboardsChange = async (
  deps: { log: EventLog }, insightId: number, events: readonly InsightEvent[], context: CommandContext,
): Promise<Position | null> => {
  let last: Position | null = null
  for (const event of events) {
    if (event.type !== 'InsightDashboardsChanged') continue
    for (const step of tileSteps(insightId, event.data, context.actor)) {
      const { position } = await completeInsightTile(deps, step, context.now)
      if (position && (last === null || comparePositions(position, last) > 0)) last = position
    }
  }
  return last
}
