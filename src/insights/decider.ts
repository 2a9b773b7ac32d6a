import { changedFields } from '../kernel/canonical-json.js'
import { NotFound, ValidationFailed, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import { tooLongMessage, withinLength } from '../dashboards/limits.js'
import type { InsightCreated, InsightEvent, InsightFields, TilePlacement } from './events.js'
import { evolveInsight, type Insight } from './state.js'

/** `Insight.name`, `derived_name` and `description` are `CharField(max_length=400)` in PostHog. */
export const MAX_TEXT_LENGTH = 400

/** Which dashboards a command puts the insight on and takes it off, as the route found them. */
export interface DashboardsChange {
  readonly changeId: string
  readonly added: readonly TilePlacement[]
  readonly removed: readonly number[]
}

export type InsightCommand =
  | { type: 'CreateInsight'; data: InsightCreated['data']; dashboards: DashboardsChange; deleted: boolean }
  | { type: 'UpdateInsight'; changes: Partial<InsightFields>; deleted: boolean | undefined; dashboards: DashboardsChange; actor: string; at: string }
  | { type: 'SetInsightSharing'; enabled: boolean; at: string }
  | { type: 'DeleteByDashboard'; dashboardId: number; changeId: string; actor: string; at: string }
  | { type: 'RestoreByDashboard'; dashboardId: number; changeId: string; actor: string; at: string }

const dashboardsChanged = (change: DashboardsChange, at: string): InsightEvent[] =>
  change.added.length === 0 && change.removed.length === 0
    ? []
    : [{ type: 'InsightDashboardsChanged', data: { changeId: change.changeId, added: [...change.added], removed: [...change.removed], at } }]

const create = (state: Insight | null, command: Extract<InsightCommand, { type: 'CreateInsight' }>): InsightEvent[] => {
  if (state !== null) return []
  const { data } = command
  const events: InsightEvent[] = [{ type: 'InsightCreated', data }, ...dashboardsChanged(command.dashboards, data.at)]
  if (command.deleted) events.push({ type: 'InsightDeleted', data: { modifiedBy: data.createdBy, at: data.at } })
  return events
}

const update = (state: Insight | null, command: Extract<InsightCommand, { type: 'UpdateInsight' }>): InsightEvent[] => {
  // A deleted insight is only reachable by a PATCH that restores it.
  if (state === null || (state.deleted && command.deleted !== false)) throw new NotFound()
  const { actor: modifiedBy, at } = command
  const events: InsightEvent[] = []
  if (state.deleted) events.push({ type: 'InsightRestored', data: { modifiedBy, at } })
  const changes = changedFields(state, command.changes)
  if (Object.keys(changes).length > 0) events.push({ type: 'InsightUpdated', data: { changes, modifiedBy, at } })
  events.push(...dashboardsChanged(command.dashboards, at))
  if (command.deleted === true && !state.deleted) events.push({ type: 'InsightDeleted', data: { modifiedBy, at } })
  return events
}

const decideCommand = (command: InsightCommand, state: Insight | null): InsightEvent[] => {
  switch (command.type) {
    case 'CreateInsight':
      return create(state, command)
    case 'UpdateInsight':
      return update(state, command)
    case 'SetInsightSharing': {
      if (state === null || state.deleted) throw new NotFound()
      const unchanged = state.sharing.enabled === command.enabled && state.sharing.created_at !== null
      return unchanged ? [] : [{ type: 'InsightSharingChanged', data: { enabled: command.enabled, at: command.at } }]
    }
    // A dashboard decided these; the insight records them once each, whatever it holds now, so
    // the dashboard's command is seen to be complete.
    case 'DeleteByDashboard':
    case 'RestoreByDashboard': {
      if (state === null) return []
      const { dashboardId: byDashboard, changeId, actor: modifiedBy, at } = command
      const type = command.type === 'DeleteByDashboard' ? 'InsightDeleted' : 'InsightRestored'
      return [{ type, data: { modifiedBy, at, byDashboard, changeId } }]
    }
    default:
      return assertNever(command)
  }
}

const checkLength = (text: string | null, attr: string): void => {
  if (text !== null && !withinLength(MAX_TEXT_LENGTH)(text)) throw new ValidationFailed(tooLongMessage(MAX_TEXT_LENGTH), attr, 'max_length')
}

/** Whatever path a change takes, no stored insight holds a text longer than PostHog's fields take. */
const checkInsightLimits = (before: Insight | null, after: Insight | null): void => {
  if (after === null || after === before) return
  for (const field of ['name', 'derived_name', 'description'] as const) {
    if (after[field] !== before?.[field]) checkLength(after[field], field)
  }
}

export const insightDecider: Decider<Insight | null, InsightCommand, InsightEvent> = {
  initialState: () => null,
  evolve: evolveInsight,
  decide: (command, state) => {
    const events = decideCommand(command, state)
    checkInsightLimits(state, events.reduce(evolveInsight, state))
    return events
  },
}
