import type { JsonObject } from '../eventlog/port.js'
import type { RenderedFormat } from './events.js'

/** An export as the API shows it, without its content. */
export interface ExportedAssetDocument extends JsonObject {
  id: number
  environment_id: number
  dashboard: number | null
  insight: number | null
  export_format: RenderedFormat
  created_at: string
  export_context: JsonObject | null
  filename: string
  expires_after: string
  exception: string | null
  created_by: string
  content_bytes: number
  content_chunks: number
  /** Pieces of content applied so far; the content is whole when this reaches `content_chunks`. */
  chunks_applied: number
}

/** One piece of an export's content, base64: `<asset id>-<index>`. Kept apart so reading an export never loads its bytes. */
export interface ExportedAssetContentDocument extends JsonObject {
  asset_id: number
  index: number
  base64: string
}

/** The export a caller gets back from creating one. */
export type ExportedAsset = ExportedAssetDocument

export const hasContent = (asset: ExportedAssetDocument): boolean =>
  asset.content_chunks > 0 && asset.chunks_applied >= asset.content_chunks

export const contentId = (assetId: number, index: number): string => `${assetId}-${index}`

declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    exported_assets: ExportedAssetDocument
    exported_asset_contents: ExportedAssetContentDocument
  }
}
