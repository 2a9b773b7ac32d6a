import { apiTime } from '../http/timestamps.js'
import { FrozenTexts } from '../kernel/frozen-texts.js'
import { JsonObjectText } from '../kernel/json-text.js'
import type { Tile } from './events.js'
import { canEdit, effectivePrivilegeLevel, effectiveRestrictionLevel, type Actor } from './permissions.js'
import { NO_TILE_INSIGHTS, visibleTiles, type TileInsight, type TileInsights } from './serialize.js'
import type { Dashboard } from './state.js'

/** Basic users as JSON text, by uuid. */
type UserTexts = ReadonlyMap<string, string>

const mentioned = (users: UserTexts, uuid: string | null): string | null => (uuid ? users.get(uuid) ?? null : null)

const tileTexts = new FrozenTexts<Tile>()

/** A tile's text, written once per kept tile while its place, its users' texts and its insight's text stay the same. */
const tileText = (dashboard: Dashboard, tile: Tile, order: number, users: UserTexts, insight: TileInsight | undefined): string => {
  const createdBy = mentioned(users, tile.text?.created_by ?? null)
  const modifiedBy = mentioned(users, tile.text?.last_modified_by ?? null)
  const inputs = [dashboard.id, dashboard.environment_id, order, createdBy, modifiedBy, insight?.text, insight?.last_refresh, insight?.is_cached]
  return tileTexts.text(tile, inputs, () => writeTile(dashboard, tile, order, createdBy, modifiedBy, insight))
}

const writeTile = (
  dashboard: Dashboard, tile: Tile, order: number, createdBy: string | null, modifiedBy: string | null, insight: TileInsight | undefined,
): string => {
  const json = new JsonObjectText().add('id', tile.id).add('dashboard_id', dashboard.id).text('insight', insight?.text ?? null)
  const card = tile.text
  if (card) {
    json.text('text', new JsonObjectText()
      .add('id', card.id)
      .add('body', card.body)
      .text('created_by', createdBy)
      .add('last_modified_at', apiTime(card.last_modified_at))
      .text('last_modified_by', modifiedBy)
      .add('team', dashboard.environment_id)
      .end())
  } else json.add('text', card)
  return json
    .add('color', tile.color)
    .add('layouts', tile.layouts)
    .add('show_description', tile.show_description)
    .add('transparent_background', tile.transparent_background)
    .add('order', order)
    .add('last_refresh', insight?.last_refresh ?? null)
    .add('is_cached', insight?.is_cached ?? false)
    .end()
}

const heads = new FrozenTexts<Dashboard>()
const tails = new FrozenTexts<Dashboard>()

/** The members before the caller's levels: the kept dashboard's own, and its creator's text. */
const headText = (dashboard: Dashboard, createdBy: string | null): string => heads.text(dashboard, [createdBy], () => new JsonObjectText()
  .add('id', dashboard.id)
  .add('name', dashboard.name)
  .add('description', dashboard.description)
  .add('pinned', dashboard.pinned)
  .add('created_at', apiTime(dashboard.created_at))
  .text('created_by', createdBy)
  .add('last_accessed_at', null)
  .add('is_shared', dashboard.sharing.enabled)
  .add('deleted', dashboard.deleted)
  .add('creation_mode', dashboard.creation_mode)
  .add('tags', dashboard.tags)
  .add('restriction_level', dashboard.restriction_level)
  .add('effective_restriction_level', effectiveRestrictionLevel(dashboard))
  .membersText())

/** The members after the caller's levels and before the tiles: the kept dashboard's own. */
const tailText = (dashboard: Dashboard): string => tails.text(dashboard, [], () => new JsonObjectText()
  .add('access_control_version', dashboard.restriction_level > 21 ? 'v1' : 'v2')
  .add('team_id', dashboard.environment_id)
  .add('filters', dashboard.filters)
  .add('variables', dashboard.variables)
  .membersText())

/**
 * The detail shape `dashboardDetail` builds, written straight to JSON text: `JSON.stringify(
 * dashboardDetail(…))`, byte for byte. What depends on the kept document (and its users' texts)
 * alone is written once per document; what depends on the caller, their levels, every time.
 */
export const dashboardDetailText = (dashboard: Dashboard, actor: Actor, users: UserTexts, insights: TileInsights = NO_TILE_INSIGHTS): string =>
  new JsonObjectText()
    .members(headText(dashboard, users.get(dashboard.created_by) ?? null))
    .add('effective_privilege_level', effectivePrivilegeLevel(dashboard, actor))
    .add('user_access_level', canEdit(dashboard, actor) ? 'editor' : 'viewer')
    .members(tailText(dashboard))
    .items('tiles', visibleTiles(dashboard, insights).map((tile, order) => tileText(dashboard, tile, order, users, insights.get(tile.id))))
    .end()
