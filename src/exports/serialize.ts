import { z } from 'zod'
import { apiTime } from '../http/timestamps.js'
import { hasContent, type ExportedAssetDocument } from './document.js'

/** An export as PostHog's `ExportedAssetSerializer` writes it, its members in that order. */
export const ExportedAssetResponse = z.object({
  id: z.number(),
  dashboard: z.number().nullable(),
  insight: z.number().nullable(),
  export_format: z.string(),
  created_at: z.string(),
  has_content: z.boolean(),
  export_context: z.unknown(),
  filename: z.string(),
  expires_after: z.string().nullable(),
  exception: z.string().nullable(),
})

export const exportedAssetJson = (asset: ExportedAssetDocument): z.input<typeof ExportedAssetResponse> => ({
  id: asset.id,
  dashboard: asset.dashboard,
  insight: asset.insight,
  export_format: asset.export_format,
  created_at: apiTime(asset.created_at),
  has_content: hasContent(asset),
  export_context: asset.export_context,
  filename: asset.filename,
  expires_after: apiTime(asset.expires_after),
  exception: asset.exception,
})
