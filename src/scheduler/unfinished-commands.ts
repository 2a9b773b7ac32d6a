import type { JsonObject } from '../eventlog/port.js'
import type { EnvironmentCreated, ProjectEnvironmentAdded } from '../accounts/events.js'
import type { DashboardTileMovedIn, DashboardTileMovedOut } from '../dashboards/events.js'
import type { FeatureFlagCreated, FlagKeyClaimed } from '../flags/events.js'
import { asDomainEvent, type Projector } from '../readstore/projector.js'

declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    /** Commands across two streams whose second step is not written yet, by `<kind>-<id>`. */
    unfinished_commands: JsonObject
  }
}

type Watched = DashboardTileMovedOut | DashboardTileMovedIn | FlagKeyClaimed | FeatureFlagCreated | ProjectEnvironmentAdded | EnvironmentCreated

/**
 * Commands that span two streams and whose second step is not in the log yet: a tile moved off
 * its source but not yet on its destination, a flag whose key claim is written but whose own
 * stream is not, an environment its project counts but whose own stream is not written. Each is kept from its first step until its second appears; the scheduler
 * completes those left behind (`src/scheduler/finish-commands.ts`).
 */
export const unfinishedCommands: Projector = {
  name: 'unfinished_commands',
  version: 1,
  collections: ['unfinished_commands'],
  handles: [
    'DashboardTileMovedOut', 'DashboardTileMovedIn', 'FlagKeyClaimed', 'FeatureFlagCreated', 'ProjectEnvironmentAdded', 'EnvironmentCreated',
  ],
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
    }
  },
}
