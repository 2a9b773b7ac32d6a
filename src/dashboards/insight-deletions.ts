import type { EventLog, Position } from '../eventlog/port.js'
import { completeDashboardInsights, insightsOnlyOn, type DashboardInsightStep } from '../insights/by-dashboard.js'
import { commandEventId } from '../kernel/command-ids.js'
import { completing } from '../kernel/completing.js'
import { crashPoint } from '../kernel/crash-points.js'
import { readAggregate, type CommandContext } from '../kernel/handle-command.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { InsightsWithDashboard } from './decider.js'
import { dashboardStream, type DashboardEvent } from './events.js'
import { tileInsightIds } from './serialize.js'
import type { Dashboard } from './state.js'

/**
 * What a PATCH of a dashboard does to the insights on it: a deletion with `delete_insights`
 * deletes those that live only here, as the read models show them now; a restoring restores
 * what the deletion deleted (the dashboard's state knows which). The id names the command on
 * the insights' streams.
 */
export const insightsWithDashboard = async (
  models: ReadModels, dashboard: Dashboard, deleted: boolean | undefined, deleteInsights: boolean | undefined, context: CommandContext,
): Promise<InsightsWithDashboard> => {
  const changeId = commandEventId(context.commandId ?? context.correlationId, `dashboard-insights-${dashboard.id}`, 0)
  const deleting = deleted === true && deleteInsights === true && !dashboard.deleted
  return { changeId, deleting: deleting ? await insightsOnlyOn(models, dashboard, tileInsightIds(dashboard)) : [] }
}

/** The deletion or restoring a command recorded earlier, found by its id (a retry finds what the first run decided). */
export const recordedWithInsights = async (log: EventLog, dashboardId: number, changeId: string): Promise<DashboardEvent[]> => {
  const { events } = await readAggregate<DashboardEvent>(log, dashboardStream(dashboardId))
  return events.filter((event) => (event.type === 'DashboardDeleted' || event.type === 'DashboardRestored') && event.data.changeId === changeId)
}

/** The insights' parts of what the dashboard's events decided. */
export const insightSteps = (dashboardId: number, events: readonly DashboardEvent[], actor: string): DashboardInsightStep[] =>
  events.flatMap((event) => {
    if ((event.type !== 'DashboardDeleted' && event.type !== 'DashboardRestored') || !event.data.changeId) return []
    const { changeId, insights = [] } = event.data
    return insights.map((insightId) => ({ changeId, dashboardId, insightId, deleted: event.type === 'DashboardDeleted', actor }))
  })

/**
 * Completes on each insight what the dashboard decided; the last position written, or null.
 * When the process dies first, the scheduler's `finishCommands` job completes it from the log.
 */
export const completeInsightsWithDashboard = async (
  deps: { log: EventLog }, dashboardId: number, events: readonly DashboardEvent[], context: CommandContext,
): Promise<Position | null> => {
  const steps = insightSteps(dashboardId, events, context.actor)
  if (steps.length === 0) return null
  crashPoint('dashboard-insights:decided')
  return completing(() => completeDashboardInsights(deps, steps, context.now))
}
