import { NotFound, PermissionDenied } from '../kernel/errors.js'
import { commandEventId } from '../kernel/command-ids.js'
import { completing, completionContext } from '../kernel/completing.js'
import { crashPoint } from '../kernel/crash-points.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { dashboardDecider } from './decider.js'
import { dashboardStream, type Tile } from './events.js'
import { checkRoomForTiles } from './limits.js'
import { canEdit, type Actor } from './permissions.js'
import type { DashboardDeps } from './service.js'
import type { Dashboard } from './state.js'

/** A move the source has recorded; the destination takes the tile when it is completed. */
export interface TileMove {
  readonly moveId: string
  readonly fromDashboard: number
  readonly toDashboard: number
  readonly tile: Tile
  readonly actor: string
}

/**
 * Puts a moved tile on its destination. Safe to run any number of times, at once or after a
 * restart: the destination takes each move once, and every run writes the same event id.
 */
export const completeTileMove = async (deps: DashboardDeps, move: TileMove, now = new Date().toISOString()) => {
  return handleCommand(deps.log, dashboardDecider, dashboardStream(move.toDashboard), {
    type: 'CompleteTileMove', tile: move.tile, fromDashboard: move.fromDashboard, moveId: move.moveId, at: now,
  }, completionContext(move.actor, now, `tile-move-${move.moveId}`))
}

/**
 * Moves a tile between two dashboards of one environment. The source decides: one append takes
 * the tile off it and records where it goes, so of concurrent moves of one tile exactly one
 * succeeds (the others find it gone: 404). The destination then takes it; when the process dies
 * in between, the scheduler's `finishCommands` job completes the move from the log.
 */
export const moveTile = async (
  deps: DashboardDeps, source: Dashboard, destination: Dashboard, tileId: number, actor: Actor, context: CommandContext,
): Promise<Dashboard> => {
  if (!source.tiles.some((t) => t.id === tileId && !t.deleted)) throw new NotFound()
  if (!canEdit(source, actor)) throw new PermissionDenied("You don't have edit permissions for this dashboard.")
  if (destination.id === source.id) return source
  if (!canEdit(destination, actor)) throw new PermissionDenied("You don't have edit permissions for the destination dashboard.")
  checkRoomForTiles(destination, 1)
  const moveId = commandEventId(context.commandId ?? context.correlationId, `move-tile-${source.id}`, tileId)
  const moved = await handleCommand(deps.log, dashboardDecider, dashboardStream(source.id), {
    type: 'MoveTileOut', actor, tileId, toDashboard: destination.id, moveId, at: context.now,
  }, context)
  const out = moved.events.find((event) => event.type === 'DashboardTileMovedOut')
  crashPoint('tile-move:moved-out')
  let position = moved.position
  if (out?.type === 'DashboardTileMovedOut' && out.data.tile) {
    const move = { moveId, fromDashboard: source.id, toDashboard: destination.id, tile: out.data.tile, actor: actor.uuid }
    // Answered once the destination shows the tile too: the insight on it lists it from there.
    position = (await completing(() => completeTileMove(deps, move, context.now))).position ?? position
  }
  const after = await deps.models.settled(position, 'dashboards', String(source.id))
  if (!after) throw new NotFound()
  return after
}
