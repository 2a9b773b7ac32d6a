import type { EventLog } from '../eventlog/port.js'
import { NotFound, ResultNotReadable, ValidationFailed } from '../kernel/errors.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { randomToken } from '../kernel/ids.js'
import { allocateId } from '../kernel/sequence.js'
import { pickDefined } from '../kernel/pick-defined.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { InsightResults } from '../insights/results.js'
import { dashboardDecider, type DashboardCommand, type TileChange } from './decider.js'
import { dashboardStream, type DashboardFields, type Tile } from './events.js'
import { completeInsightsWithDashboard, insightsWithDashboard, recordedWithInsights } from './insight-deletions.js'
import { checkRoomForTiles } from './limits.js'
import { canEdit, type Actor } from './permissions.js'
import { normaliseTags, type TileInput } from './schemas.js'
import type { Dashboard } from './state.js'
import { TEMPLATES } from './templates.js'
import { ownValue } from '../kernel/own-value.js'

export interface DashboardDeps {
  readonly log: EventLog
  readonly models: ReadModels
}

/** What dashboard routes need besides: the results of the insights their tiles show. */
export interface DashboardRouteDeps extends DashboardDeps {
  readonly insightResults: InsightResults
}

/** A dashboard of this environment, deleted or not; anything else is 404. */
export const findDashboard = async (models: ReadModels, environment: Environment, id: string | number): Promise<Dashboard> => {
  const key = String(id)
  if (!/^\d+$/.test(key)) throw new NotFound()
  const dashboard = await models.get('dashboards', String(Number(key)))
  if (!dashboard || dashboard.environment_id !== environment.id) throw new NotFound()
  return dashboard
}

export const liveDashboard = async (models: ReadModels, environment: Environment, id: string | number): Promise<Dashboard> => {
  const dashboard = await findDashboard(models, environment, id)
  if (dashboard.deleted) throw new NotFound()
  return dashboard
}

/** Runs a dashboard command and answers with the read model once it reflects the command. */
const run = async (deps: DashboardDeps, id: number, command: DashboardCommand, context: CommandContext): Promise<Dashboard> => {
  const result = await handleCommand(deps.log, dashboardDecider, dashboardStream(id), command, context)
  const dashboard = await deps.models.settled(result.position, 'dashboards', String(id))
  if (!dashboard) throw new NotFound()
  return dashboard
}

const textTile = async (log: EventLog, body: string, context: CommandContext, extra: Partial<Tile> = {}): Promise<Tile> => ({
  id: await allocateId(log, 'dashboard_tile', context),
  text: {
    id: await allocateId(log, 'text', context), body, created_by: context.actor, last_modified_at: context.now, last_modified_by: context.actor,
  },
  color: null, layouts: {}, show_description: null, transparent_background: null, deleted: false,
  ...extra,
})

const copiedTiles = async (log: EventLog, source: Dashboard, deepCopy: boolean, context: CommandContext): Promise<Tile[]> => {
  const tiles: Tile[] = []
  for (const tile of source.tiles.filter((t) => !t.deleted)) {
    const text = tile.text && deepCopy
      ? { ...tile.text, id: await allocateId(log, 'text', context), created_by: context.actor, last_modified_at: context.now, last_modified_by: context.actor }
      : tile.text
    tiles.push({ ...tile, id: await allocateId(log, 'dashboard_tile', context), text })
  }
  return tiles
}

export interface CreateDashboardInput {
  name?: string | null | undefined
  description?: string | undefined
  pinned?: boolean | undefined
  deleted?: boolean | undefined
  tags?: string[] | undefined
  restriction_level?: 21 | 37 | undefined
  filters?: Record<string, unknown> | undefined
  use_template?: string | undefined
  use_dashboard?: number | null | undefined
  duplicate_tiles?: boolean | undefined
}

export const createDashboard = async (
  deps: DashboardDeps, environment: Environment, input: CreateDashboardInput, context: CommandContext,
): Promise<Dashboard> => {
  const template = input.use_template ? input.use_template : null
  const sourceId = input.use_dashboard ?? null
  if (template !== null && sourceId !== null) throw new ValidationFailed('`use_dashboard` and `use_template` cannot be used together')
  let creationMode = 'default'
  let tiles: Tile[] = []
  let defaults: Pick<DashboardFields, 'name' | 'description' | 'filters' | 'variables' | 'tags'> = {
    name: null, description: '', filters: {}, variables: {}, tags: [],
  }
  if (sourceId !== null) {
    const source = await deps.models.get('dashboards', String(sourceId))
    if (!source || source.environment_id !== environment.id || source.deleted) throw new ValidationFailed('Invalid value provided', 'use_dashboard')
    creationMode = 'duplicate'
    tiles = await copiedTiles(deps.log, source, input.duplicate_tiles === true, context)
    defaults = { ...defaults, filters: source.filters, variables: source.variables }
  } else if (template !== null) {
    const chosen = ownValue(TEMPLATES, template)
    if (!chosen) throw new ValidationFailed(`Invalid template provided: ${template}`, 'use_template')
    creationMode = 'template'
    defaults = { ...defaults, name: chosen.name, description: chosen.description, tags: [...chosen.tags] }
    for (const body of chosen.textCards) tiles.push(await textTile(deps.log, body, context))
  }
  const id = await allocateId(deps.log, 'dashboard', context)
  const created = await run(deps, id, {
    type: 'CreateDashboard',
    data: {
      dashboardId: id, environmentId: environment.id,
      name: input.name ?? defaults.name,
      description: input.description || defaults.description,
      pinned: input.pinned ?? false,
      restriction_level: input.restriction_level ?? 21,
      filters: input.filters ?? defaults.filters,
      variables: defaults.variables,
      tags: normaliseTags(input.tags ?? defaults.tags),
      creationMode, tiles, accessToken: randomToken('', 22), createdBy: context.actor, at: context.now,
    },
  }, context)
  return created
}

export interface UpdateDashboardInput extends Omit<CreateDashboardInput, 'use_template' | 'use_dashboard' | 'duplicate_tiles'> {
  tiles?: TileInput[] | undefined
  delete_insights?: boolean | undefined
}

const tileChanges = async (log: EventLog, tiles: readonly TileInput[], context: CommandContext): Promise<TileChange[]> => {
  const changes: TileChange[] = []
  for (const input of tiles) {
    const display: Partial<Tile> = pickDefined(input, ['color', 'layouts', 'deleted', 'show_description', 'transparent_background'])
    if (input.id !== undefined) changes.push({ kind: 'update', tileId: input.id, changes: display })
    else if (input.text !== undefined) changes.push({ kind: 'add', tile: await textTile(log, input.text.body, context, display) })
    else throw new ValidationFailed('A new tile needs a text card.', 'tiles')
  }
  return changes
}

export const updateDashboard = async (
  deps: DashboardDeps, dashboard: Dashboard, input: UpdateDashboardInput, actor: Actor, context: CommandContext,
): Promise<Dashboard> => {
  const changes: Partial<DashboardFields> = pickDefined(input, ['name', 'description', 'pinned', 'restriction_level', 'filters'])
  if (input.tags !== undefined) changes.tags = normaliseTags(input.tags)
  // New text cards take ids from the log, so a PATCH that cannot fit them is refused before that.
  // The decider answers first for callers it refuses anyway (no edit rights, a deleted dashboard).
  if (canEdit(dashboard, actor) && !dashboard.deleted) checkRoomForTiles(dashboard, (input.tiles ?? []).filter((tile) => tile.id === undefined).length)
  const tiles = await tileChanges(deps.log, input.tiles ?? [], context)
  const insights = await insightsWithDashboard(deps.models, dashboard, input.deleted, input.delete_insights, context)
  const result = await handleCommand(deps.log, dashboardDecider, dashboardStream(dashboard.id), {
    type: 'UpdateDashboard', actor, changes, deleted: input.deleted, tiles, at: context.now, insights,
  }, context)
  // The insights it deleted or restored with it are read back too, as their tiles show them.
  const decided = result.replayed ? await recordedWithInsights(deps.log, dashboard.id, insights.changeId) : result.events
  const completed = await completeInsightsWithDashboard(deps, dashboard.id, decided, context)
  if (completed && !(await deps.models.waitFor(completed, ['insights']))) throw new ResultNotReadable()
  const updated = await deps.models.settled(result.position, 'dashboards', String(dashboard.id))
  if (!updated) throw new NotFound()
  return updated
}

export const dashboardCommand = (deps: DashboardDeps, dashboard: Dashboard, command: DashboardCommand, context: CommandContext): Promise<Dashboard> =>
  run(deps, dashboard.id, command, context)
