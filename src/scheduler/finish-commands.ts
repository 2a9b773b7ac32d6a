import type { EnvironmentCreated } from '../accounts/events.js'
import type { Tile } from '../dashboards/events.js'
import { completeEnvironmentCreate } from '../environments/service.js'
import { completeTileMove } from '../dashboards/tile-moves.js'
import type { EventLog, JsonObject } from '../eventlog/port.js'
import type { FeatureFlagCreated } from '../flags/events.js'
import { completeFlagCreate } from '../flags/service.js'
import { completeDashboardInsight, type DashboardInsightStep } from '../insights/by-dashboard.js'
import { completeInsightTile, type InsightTileStep } from '../insights/dashboard-links.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { Job } from './scheduler.js'

/** A command's first step older than this whose second is still missing was left behind by a process that died. */
export const LEFT_BEHIND_MS = 2000

interface FinishDeps {
  readonly log: EventLog
  readonly models: ReadModels
  readonly everyMs?: number
}

const finish = async (deps: FinishDeps, doc: JsonObject, now: Date): Promise<void> => {
  if (doc['kind'] === 'tile-move') {
    const move = doc['move'] as JsonObject
    await completeTileMove(deps, {
      moveId: String(move['moveId']), fromDashboard: Number(move['fromDashboard']), toDashboard: Number(move['toDashboard']),
      tile: move['tile'] as Tile, actor: String(move['actor']),
    }, now.toISOString())
  } else if (doc['kind'] === 'flag-create') {
    await completeFlagCreate(deps.log, doc['flag'] as FeatureFlagCreated['data'], now.toISOString())
  } else if (doc['kind'] === 'environment-create') {
    await completeEnvironmentCreate(deps.log, doc['environment'] as EnvironmentCreated['data'], now.toISOString())
  } else if (doc['kind'] === 'insight-tile') {
    await completeInsightTile(deps, doc['step'] as unknown as InsightTileStep, now.toISOString())
  } else if (doc['kind'] === 'dashboard-insight') {
    await completeDashboardInsight(deps, doc['step'] as unknown as DashboardInsightStep, now.toISOString())
  }
}

/**
 * Completes the commands across two streams that a process left half done (see
 * `projections/unfinished-commands.ts`): the second step is written from the first, with the same
 * event ids as the request would have used, so a request finishing at the same time is harmless.
 */
export const finishCommandsJob = (deps: FinishDeps): Job => ({
  name: 'finish-commands',
  everyMs: deps.everyMs ?? 1000,
  async run(now) {
    const unfinished = await deps.models.find('unfinished_commands', { orderBy: [['since', 'asc']], limit: 100 })
    for (const doc of unfinished) {
      if (now.getTime() - Date.parse(String(doc['since'])) < LEFT_BEHIND_MS) continue
      await finish(deps, doc, now)
    }
  },
})
