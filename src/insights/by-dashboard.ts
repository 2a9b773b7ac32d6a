import type { EventLog, Position } from '../eventlog/port.js'
import { comparePositions } from '../eventlog/port.js'
import { completionContext } from '../kernel/completing.js'
import { handleCommand } from '../kernel/handle-command.js'
import type { ReadModels } from '../readstore/read-models.js'
import { insightDecider } from './decider.js'
import { insightStream } from './events.js'

/** One insight's part of a dashboard's deletion with `delete_insights` (`deleted`), or of its restoring. */
export interface DashboardInsightStep {
  readonly changeId: string
  readonly dashboardId: number
  readonly insightId: number
  readonly deleted: boolean
  readonly actor: string
}

/**
 * Writes one insight's part of what a dashboard decided. Safe to run any number of times, at
 * once or after a restart: every run writes the same event id, so the insight records it once.
 */
export const completeDashboardInsight = (deps: { log: EventLog }, step: DashboardInsightStep, now = new Date().toISOString()) => {
  const { changeId, dashboardId, insightId, actor } = step
  const type = step.deleted ? 'DeleteByDashboard' as const : 'RestoreByDashboard' as const
  return handleCommand(deps.log, insightDecider, insightStream(insightId), { type, dashboardId, changeId, actor, at: now },
    completionContext(actor, now, `dashboard-insight-${changeId}-${insightId}`))
}

/** Completes each insight's part in turn; the last position written, or null. */
export const completeDashboardInsights = async (deps: { log: EventLog }, steps: readonly DashboardInsightStep[], now: string): Promise<Position | null> => {
  let last: Position | null = null
  for (const step of steps) {
    const { position } = await completeDashboardInsight(deps, step, now)
    if (position && (last === null || comparePositions(position, last) > 0)) last = position
  }
  return last
}

/**
 * Of the insights on a live dashboard's live tiles, those that are live and on no other live
 * dashboard: what its deletion with `delete_insights` deletes with it.
 */
export const insightsOnlyOn = async (models: ReadModels, dashboard: { environment_id: number }, insightIds: readonly number[]): Promise<number[]> => {
  const only: number[] = []
  for (const id of new Set(insightIds)) {
    const insight = await models.get('insights', String(id))
    if (!insight || insight.deleted || insight.environment_id !== dashboard.environment_id) continue
    // The dashboard being deleted is one of them.
    const holding = await models.count('dashboards', { environment_id: dashboard.environment_id, deleted: false }, { insight_ids: String(id) })
    if (holding <= 1) only.push(id)
  }
  return only.sort((a, b) => a - b)
}
