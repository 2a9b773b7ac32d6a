import type { JsonObject } from '../eventlog/port.js'
import type { EnvironmentCreated, ProjectEnvironmentAdded } from '../accounts/events.js'
import type {
  DashboardDeleted, DashboardInsightTilePlaced, DashboardInsightTileRemoved, DashboardRestored, DashboardTileMovedIn, DashboardTileMovedOut,
} from '../dashboards/events.js'
import { insightSteps } from '../dashboards/insight-deletions.js'
import type { FeatureFlagCreated, FlagKeyClaimed } from '../flags/events.js'
import { tileSteps } from '../insights/dashboard-links.js'
import type { InsightDashboardsChanged, InsightDeleted, InsightRestored } from '../insights/events.js'
import { CHANGE_COMMITTED, changeEvents } from '../kernel/change-parts.js'
import { asDomainEvent, type Projector, type ProjectionView } from '../readstore/projector.js'

declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    /** Commands across two streams whose second step is not written yet, by `<kind>-<id>`. */
    unfinished_commands: JsonObject
  }
}

type Watched = DashboardTileMovedOut | DashboardTileMovedIn | FlagKeyClaimed | FeatureFlagCreated | ProjectEnvironmentAdded | EnvironmentCreated
  | InsightDashboardsChanged | DashboardInsightTilePlaced | DashboardInsightTileRemoved
  | DashboardDeleted | DashboardRestored | InsightDeleted | InsightRestored

/** Streams whose changes may be committed in parts and decide commands across streams. */
const DECIDING_STREAMS = ['dashboard-', 'insight-']

const streamNumber = (stream: string, prefix: string): number => Number(stream.slice(prefix.length))

const actorOf = (metadata: Record<string, unknown> | undefined): string => String(metadata?.['actor'] ?? '')

/** An insight's change of dashboards: one entry per dashboard, until that dashboard records it. */
const insightTilesDecided = (view: ProjectionView, insightId: number, data: InsightDashboardsChanged['data'], actor: string): void => {
  for (const step of tileSteps(insightId, data, actor)) {
    view.put('unfinished_commands', `insight-tile-${step.changeId}-${step.dashboardId}`, { kind: 'insight-tile', since: data.at, step: { ...step } })
  }
}

/** A dashboard's deletion or restoring with its insights: one entry per insight, until that insight records it. */
const dashboardInsightsDecided = (view: ProjectionView, dashboardId: number, event: DashboardDeleted | DashboardRestored, actor: string): void => {
  for (const step of insightSteps(dashboardId, [event], actor)) {
    view.put('unfinished_commands', `dashboard-insight-${step.changeId}-${step.insightId}`, { kind: 'dashboard-insight', since: event.data.at, step: { ...step } })
  }
}

/**
 * Commands that span two streams and whose second step is not in the log yet: a tile moved off
 * its source but not yet on its destination, a flag whose key claim is written but whose own
 * stream is not, an environment its project counts but whose own stream is not written, an
 * insight's change of dashboards some dashboard has not recorded, a dashboard's deletion or
 * restoring some insight on it has not. Each is kept from its first step until its second
 * appears; the scheduler completes those left behind (`src/scheduler/finish-commands.ts`).
 */
export const unfinishedCommands: Projector = {
  name: 'unfinished_commands',
  version: 1,
  collections: ['unfinished_commands'],
  handles: [
    'DashboardTileMovedOut', 'DashboardTileMovedIn', 'FlagKeyClaimed', 'FeatureFlagCreated', 'ProjectEnvironmentAdded', 'EnvironmentCreated',
    'InsightDashboardsChanged', 'DashboardInsightTilePlaced', 'DashboardInsightTileRemoved',
    'DashboardDeleted', 'DashboardRestored', 'InsightDeleted', 'InsightRestored', CHANGE_COMMITTED,
  ],
  // A decision committed in parts is read from its parts, in place of its commit.
  expand: (event, log) => (event.type === CHANGE_COMMITTED && DECIDING_STREAMS.some((prefix) => event.streamId.startsWith(prefix))
    ? changeEvents(log, event)
    : null),
  apply(view, recorded) {
    const event = asDomainEvent<Watched>(recorded)
    switch (event.type) {
      case 'DashboardTileMovedOut': {
        const { moveId, tile, toDashboard, at } = event.data
        if (moveId === undefined || tile === undefined) return
        const fromDashboard = Number(recorded.streamId.slice('dashboard-'.length))
        const actor = String(recorded.metadata?.['actor'] ?? '')
        view.put('unfinished_commands', `tile-move-${moveId}`, { kind: 'tile-move', since: at, move: { moveId, fromDashboard, toDashboard, tile, actor } })
        return
      }
      case 'DashboardTileMovedIn':
        if (event.data.moveId !== undefined) view.delete('unfinished_commands', `tile-move-${event.data.moveId}`)
        return
      case 'FlagKeyClaimed': {
        const { creating, at } = event.data
        if (creating) view.put('unfinished_commands', `flag-create-${creating.flagId}`, { kind: 'flag-create', since: at, flag: creating })
        return
      }
      case 'FeatureFlagCreated':
        view.delete('unfinished_commands', `flag-create-${event.data.flagId}`)
        return
      case 'ProjectEnvironmentAdded': {
        const { creating, at } = event.data
        if (creating) view.put('unfinished_commands', `environment-create-${creating.environmentId}`, { kind: 'environment-create', since: at, environment: creating })
        return
      }
      case 'EnvironmentCreated':
        view.delete('unfinished_commands', `environment-create-${event.data.environmentId}`)
        return
      case 'InsightDashboardsChanged':
        insightTilesDecided(view, streamNumber(recorded.streamId, 'insight-'), event.data, actorOf(recorded.metadata))
        return
      case 'DashboardInsightTilePlaced':
      case 'DashboardInsightTileRemoved':
        view.delete('unfinished_commands', `insight-tile-${event.data.changeId}-${streamNumber(recorded.streamId, 'dashboard-')}`)
        return
      case 'DashboardDeleted':
      case 'DashboardRestored':
        dashboardInsightsDecided(view, streamNumber(recorded.streamId, 'dashboard-'), event, actorOf(recorded.metadata))
        return
      case 'InsightDeleted':
      case 'InsightRestored':
        if (event.data.changeId !== undefined) view.delete('unfinished_commands', `dashboard-insight-${event.data.changeId}-${streamNumber(recorded.streamId, 'insight-')}`)
        return
    }
  },
}
