import { CHANGE_COMMITTED, changeEvents } from '../kernel/change-parts.js'
import { assertNever } from '../kernel/errors.js'
import { asDomainEvent, type Projector } from '../readstore/projector.js'
import { contentId, type ExportedAssetDocument } from './document.js'
import { EXPORTED_ASSET_EVENT_TYPES, EXPORTED_ASSET_STREAM_PREFIX, type ExportedAssetEvent } from './events.js'

const ASSETS = 'exported_assets'
const CONTENTS = 'exported_asset_contents'

/**
 * Exports (`exported_assets`) and their content in pieces (`exported_asset_contents`). Content
 * pieces are only written here, never read, so the runtime keeps none of them in memory once
 * committed; an export counts the pieces applied, so it has content only once all of them are in.
 */
export const exportedAssets: Projector = {
  name: 'exported_assets',
  version: 1,
  collections: [ASSETS, CONTENTS],
  writeOnly: [CONTENTS],
  handles: [...EXPORTED_ASSET_EVENT_TYPES, CHANGE_COMMITTED],
  indexes: { [ASSETS]: [['environment_id', 'created_by']] },
  // An export whose content is larger than one append is written in parts, read in place of its commit.
  expand: (event, log) => (event.type === CHANGE_COMMITTED && event.streamId.startsWith(EXPORTED_ASSET_STREAM_PREFIX) ? changeEvents(log, event) : null),
  apply(view, recorded) {
    if (!recorded.streamId.startsWith(EXPORTED_ASSET_STREAM_PREFIX) || recorded.type === CHANGE_COMMITTED) return
    const event = asDomainEvent<ExportedAssetEvent>(recorded)
    switch (event.type) {
      case 'ExportedAssetCreated': {
        const { data } = event
        const doc: ExportedAssetDocument = {
          id: data.assetId, environment_id: data.environmentId, dashboard: data.dashboardId, insight: data.insightId,
          export_format: data.exportFormat, created_at: data.at, export_context: data.exportContext, filename: data.filename,
          expires_after: data.expiresAfter, exception: data.exception, created_by: data.createdBy,
          content_bytes: data.contentBytes, content_chunks: data.contentChunks, chunks_applied: 0,
        }
        view.put(ASSETS, String(data.assetId), doc)
        return
      }
      case 'ExportedAssetContentAdded': {
        const { assetId, index, base64 } = event.data
        const asset = view.get<ExportedAssetDocument>(ASSETS, String(assetId))
        if (!asset) return
        view.put(CONTENTS, contentId(assetId, index), { asset_id: assetId, index, base64 })
        view.put(ASSETS, String(assetId), { ...asset, chunks_applied: asset.chunks_applied + 1 })
        return
      }
      default:
        assertNever(event)
    }
  },
}
