import type { JsonObject } from '../eventlog/port.js'
import { eventTypes } from '../kernel/event-types.js'

/** The formats PostHog's `ExportedAsset.export_format` takes; Hedgelog renders PNG and CSV. */
export const EXPORT_FORMATS = [
  'image/png', 'application/pdf', 'text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'video/webm', 'video/mp4', 'image/gif', 'application/json',
] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/** The formats Hedgelog draws or writes. */
export type RenderedFormat = 'image/png' | 'text/csv'

/**
 * What an export is, as it was asked for and drawn: its target, format and context, the name its
 * file was given, when it stops being served, and either how many bytes of content follow (in
 * `ExportedAssetContentAdded` events of the same change) or the error that kept it from being drawn.
 */
export type ExportedAssetCreated = {
  type: 'ExportedAssetCreated'
  data: {
    assetId: number
    environmentId: number
    exportFormat: RenderedFormat
    dashboardId: number | null
    insightId: number | null
    exportContext: JsonObject | null
    filename: string
    expiresAfter: string
    exception: string | null
    contentBytes: number
    contentChunks: number
    createdBy: string
    at: string
  }
}

/** One piece of an export's content, base64, in order from `index` 0. */
export type ExportedAssetContentAdded = {
  type: 'ExportedAssetContentAdded'
  data: { assetId: number; index: number; base64: string }
}

export type ExportedAssetEvent = ExportedAssetCreated | ExportedAssetContentAdded

export const EXPORTED_ASSET_EVENT_TYPES = eventTypes<ExportedAssetEvent['type']>({
  ExportedAssetCreated: true, ExportedAssetContentAdded: true,
})

export const EXPORTED_ASSET_STREAM_PREFIX = 'exportedasset-'
export const exportedAssetStream = (id: number) => `${EXPORTED_ASSET_STREAM_PREFIX}${id}`
