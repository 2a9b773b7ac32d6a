import { NotFound, ResultNotReadable } from '../kernel/errors.js'
import { checkStorable } from '../kernel/change-parts.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { allocateId } from '../kernel/sequence.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { InsightDocument } from '../insights/document.js'
import { renderCsv, type Rendered } from './csv-export.js'
import type { ExportDeps } from './deps.js'
import { exportedAssetDecider } from './decider.js'
import { contentId, hasContent, type ExportedAsset, type ExportedAssetDocument } from './document.js'
import { ExportTooLarge, formatNotSupported, notSupportedForResource, videoNotSupported } from './errors.js'
import { exportedAssetStream, type RenderedFormat } from './events.js'
import { exportFilename } from './filename.js'
import { renderPicture } from './picture.js'
import type { ExportRequest } from './request.js'

export type { ExportDeps } from './deps.js'

/** Bytes of content an export holds at most; larger content is refused with 413 before anything is written. */
export const MAX_CONTENT_BYTES = 8 * 1024 * 1024

const DAY = 86_400_000

const midnight = (ms: number): string => `${new Date(ms).toISOString().slice(0, 10)}T00:00:00.000Z`

/**
 * When an export stops being served: as asked; when not asked, the API's default, the UTC date
 * 26 weeks on; when asked for null, the model's, seven days on for CSV and 180 for anything else.
 */
const expiryOf = (asked: string | null | undefined, format: RenderedFormat, now: string): string => {
  const at = Date.parse(now)
  if (asked === undefined) return midnight(at + 182 * DAY)
  if (asked === null) return midnight(at + (format === 'text/csv' ? 7 : 180) * DAY)
  return asked
}

/** Whether an export is still served at `now` (PostHog's manager hides those whose `expires_after` has passed). */
export const isLive = (asset: ExportedAssetDocument, now: Date): boolean => Date.parse(asset.expires_after) >= now.getTime()

const renderedFormat = (request: ExportRequest): RenderedFormat => {
  const { format } = request
  if (format === 'image/png' || format === 'text/csv') return format
  if (format === 'video/mp4' || format === 'video/webm' || format === 'image/gif') throw videoNotSupported()
  throw formatNotSupported(format)
}

const render = async (deps: ExportDeps, environment: Environment, request: ExportRequest, format: RenderedFormat): Promise<Rendered> => {
  if (format === 'text/csv') return renderCsv(deps, environment, request.insight, request.exportContext)
  // A picture is of an insight; PostHog draws dashboards in a browser, which Hedgelog has not.
  if (request.insight === null) throw notSupportedForResource()
  return renderPicture(deps, environment, request.insight)
}

/**
 * Creates an export: draws its content now (PostHog draws in a worker and clients poll
 * `has_content`; answering with the content drawn is what they wait for), records what it is and
 * its content in its own stream, and answers it from the read model once projected.
 */
export const createExport = async (deps: ExportDeps, environment: Environment, request: ExportRequest, context: CommandContext): Promise<ExportedAsset> => {
  const format = renderedFormat(request)
  const rendered = await render(deps, environment, request, format)
  if (rendered.content !== null && rendered.content.length > MAX_CONTENT_BYTES) throw new ExportTooLarge(rendered.content.length, MAX_CONTENT_BYTES)
  const exportContext = request.exportContext
  if (exportContext !== null) checkStorable('ExportedAssetCreated', exportContext)
  const assetId = await allocateId(deps.log, 'exported_asset', context)
  const filename = exportFilename({
    format, exportContext, dashboardName: request.dashboard?.name ?? null, insight: request.insight, createdAt: context.now,
  })
  const result = await handleCommand(deps.log, exportedAssetDecider, exportedAssetStream(assetId), {
    type: 'CreateExportedAsset',
    data: {
      assetId, environmentId: environment.id, exportFormat: format, dashboardId: request.dashboard?.id ?? null,
      insightId: request.insight?.id ?? null, exportContext, filename, expiresAfter: expiryOf(request.expiresAfter, format, context.now),
      exception: rendered.exception, createdBy: context.actor, at: context.now,
    },
    content: rendered.content,
  }, context)
  const asset = await deps.models.settled(result.position, 'exported_assets', String(assetId))
  if (!asset || !(hasContent(asset) || asset.exception !== null)) throw new ResultNotReadable()
  return asset
}

/**
 * A PNG export of one insight through the same command as `POST …/exports/`, for deliveries:
 * the insight's chart drawn from its results now. `context` names who asked (its actor becomes
 * the export's `created_by`) and when.
 */
export const createInsightPicture = (
  deps: ExportDeps, environment: Environment, insight: InsightDocument, context: CommandContext,
): Promise<ExportedAsset> =>
  createExport(deps, environment, { format: 'image/png', dashboard: null, insight, exportContext: null, expiresAfter: undefined }, context)

/** An export of this environment that is still served; anything else is 404. */
export const findExport = async (models: ReadModels, environment: Environment, key: string, now: Date): Promise<ExportedAssetDocument> => {
  if (!/^\d{1,15}$/.test(key)) throw new NotFound()
  const asset = await models.get('exported_assets', String(Number(key)))
  if (!asset || asset.environment_id !== environment.id || !isLive(asset, now)) throw new NotFound()
  return asset
}

/** An export's content, whole; 404 when it has none (PostHog's `get_content_response`). */
export const exportContent = async (models: ReadModels, asset: ExportedAssetDocument): Promise<Buffer> => {
  if (!hasContent(asset)) throw new NotFound()
  const ids = Array.from({ length: asset.content_chunks }, (_, index) => contentId(asset.id, index))
  const pieces = await models.getMany('exported_asset_contents', ids)
  return Buffer.concat(ids.map((id) => {
    const piece = pieces.get(id)
    if (!piece) throw new NotFound()
    return Buffer.from(piece.base64, 'base64')
  }))
}
