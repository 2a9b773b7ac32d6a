import type { EventLog } from '../eventlog/port.js'
import { hasContent } from '../exports/document.js'
import { assetLink } from '../exports/link.js'
import { exportLinkSecret } from '../exports/link-key.js'
import { createInsightPicture } from '../exports/service.js'
import type { InsightResults } from '../insights/results.js'
import type { CommandContext } from '../kernel/handle-command.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { PictureLink } from './pictures.js'

export interface ExportLinkDeps {
  readonly log: EventLog
  readonly models: ReadModels
  readonly insightResults: InsightResults
  /** Where the links start (`HEDGELOG_PUBLIC_URL`). */
  readonly publicUrl: string
}

/**
 * Links to insights' pictures as PostHog makes them for subscriptions: each picture becomes a PNG
 * export of its insight (created by `context`'s actor), and the link is the export's signed public
 * address (`/exporter/<filename>?token=…`), valid until the export itself expires. The export
 * draws its picture from the insight itself, so the PNG handed in is not stored. Null for an
 * insight that is gone, or whose export holds no picture.
 */
export const exportPictureLink = (deps: ExportLinkDeps, environment: Environment, context: CommandContext): PictureLink => async (insight) => {
  const document = await deps.models.get('insights', String(insight.id))
  if (!document || document.deleted) return null
  const asset = await createInsightPicture(deps, environment, document, context)
  if (!hasContent(asset)) return null
  const secret = await exportLinkSecret(deps.log, context)
  return assetLink(deps.publicUrl, asset, new Date(asset.expires_after), secret)
}
