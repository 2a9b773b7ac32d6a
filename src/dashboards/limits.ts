import { ValidationFailed } from '../kernel/errors.js'
import { pythonJsonLength } from '../kernel/python-json.js'
import type { Tile } from './events.js'
import type { Dashboard } from './state.js'

/** `Dashboard.name` and `DashboardTile.color` are `CharField(max_length=400)` in PostHog. */
export const MAX_NAME_LENGTH = 400
export const MAX_COLOR_LENGTH = 400
/** PostHog's `Text.body` and its TextSerializer; the description as its cross-project dashboards bound it. */
export const MAX_TEXT_BODY_LENGTH = 4000
export const MAX_DESCRIPTION_LENGTH = 4000
/** Live tiles per dashboard and JSON sizes, as PostHog's cross-project dashboards bound them. */
export const MAX_TILES = 100
export const MAX_FILTERS_BYTES = 16_384
export const MAX_LAYOUTS_BYTES = 4_096

export const TOO_MANY_TILES = `A dashboard holds at most ${MAX_TILES} tiles. Remove one before adding another.`
export const TEXT_BODY_TOO_LONG = `Text body cannot exceed ${MAX_TEXT_BODY_LENGTH} characters`
export const tooLongMessage = (max: number): string => `Ensure this field has no more than ${max} characters.`
export const tooLargeMessage = (max: number): string => `Keep this under ${max} bytes.`

/** Python counts code points, so a character outside the BMP counts once. */
export const withinLength = (max: number) => (text: string): boolean => {
  if (text.length <= max) return true
  let count = 0
  for (const _ of text) if (++count > max) return false
  return true
}

export const withinBytes = (max: number) => (value: unknown): boolean => pythonJsonLength(value) <= max

const checkLength = (text: string | null, max: number, attr: string, message = tooLongMessage(max)): void => {
  if (text !== null && !withinLength(max)(text)) throw new ValidationFailed(message, attr, 'max_length')
}

const checkBytes = (value: unknown, max: number, attr: string): void => {
  if (!withinBytes(max)(value)) throw new ValidationFailed(tooLargeMessage(max), attr)
}

const checkTile = (tile: Tile): void => {
  checkLength(tile.text?.body ?? null, MAX_TEXT_BODY_LENGTH, 'text__body', TEXT_BODY_TOO_LONG)
  checkLength(tile.color, MAX_COLOR_LENGTH, 'color')
  checkBytes(tile.layouts, MAX_LAYOUTS_BYTES, 'layouts')
}

/**
 * Only tiles a change brings onto the dashboard (new, moved in or restored) are held to the
 * ceiling, so a dashboard that is over it can still lose tiles or restyle them.
 */
const checkTiles = (before: readonly Tile[], after: readonly Tile[]): void => {
  const previous = new Map(before.map((tile) => [tile.id, tile]))
  for (const tile of after) if (previous.get(tile.id) !== tile) checkTile(tile)
  const live = after.filter((tile) => !tile.deleted)
  const entering = live.some((tile) => previous.get(tile.id)?.deleted !== false)
  if (entering && live.length > MAX_TILES) throw new ValidationFailed(TOO_MANY_TILES, 'tiles')
}

/**
 * Refuses a change whose result would exceed a dashboard limit, with PostHog's error for it.
 * Evolving keeps unchanged fields and tiles as the same objects, so only what changed is measured.
 */
export const checkDashboardLimits = (before: Dashboard | null, after: Dashboard | null): void => {
  if (after === null || after === before) return
  if (after.name !== before?.name) checkLength(after.name, MAX_NAME_LENGTH, 'name')
  if (after.description !== before?.description) checkLength(after.description, MAX_DESCRIPTION_LENGTH, 'description')
  if (after.filters !== before?.filters) checkBytes(after.filters, MAX_FILTERS_BYTES, 'filters')
  if (after.tiles !== before?.tiles) checkTiles(before?.tiles ?? [], after.tiles)
}

/** Live tiles after adding `adding` more, checked before ids are allocated for them. */
export const checkRoomForTiles = (dashboard: Dashboard, adding: number): void => {
  const live = dashboard.tiles.filter((tile) => !tile.deleted).length
  if (adding > 0 && live + adding > MAX_TILES) throw new ValidationFailed(TOO_MANY_TILES, 'tiles')
}
