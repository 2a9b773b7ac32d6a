import { assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import type { ExportedAssetCreated, ExportedAssetEvent } from './events.js'

/** Raw bytes of content one event carries at most: its base64 (about 342 KiB) leaves room in a part append. */
export const CONTENT_CHUNK_BYTES = 256 * 1024

/** An export as its stream leaves it: created once, never changed. */
export type ExportedAssetState = { readonly created: false } | { readonly created: true; readonly chunks: number }

export type ExportedAssetCommand = {
  type: 'CreateExportedAsset'
  /** Everything but the content's size, which the decider counts. */
  data: Omit<ExportedAssetCreated['data'], 'contentBytes' | 'contentChunks'>
  /** The drawn content; null when drawing failed (`data.exception` says why). */
  content: Buffer | null
}

const chunksOf = (content: Buffer): string[] => {
  const chunks: string[] = []
  for (let offset = 0; offset < content.length; offset += CONTENT_CHUNK_BYTES) {
    chunks.push(content.subarray(offset, offset + CONTENT_CHUNK_BYTES).toString('base64'))
  }
  return chunks
}

/**
 * Exports are created whole, with their content, by one command; creating one that exists
 * records nothing (a retry), so an asset never changes once written.
 */
export const exportedAssetDecider: Decider<ExportedAssetState, ExportedAssetCommand, ExportedAssetEvent> = {
  initialState: () => ({ created: false }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'ExportedAssetCreated': return { created: true, chunks: 0 }
      case 'ExportedAssetContentAdded': return state.created ? { created: true, chunks: state.chunks + 1 } : state
      default: return assertNever(event)
    }
  },
  decide: (command, state) => {
    if (state.created) return []
    const { assetId } = command.data
    const chunks = command.content === null ? [] : chunksOf(command.content)
    return [
      { type: 'ExportedAssetCreated', data: { ...command.data, contentBytes: command.content?.length ?? 0, contentChunks: chunks.length } },
      ...chunks.map((base64, index): ExportedAssetEvent => ({ type: 'ExportedAssetContentAdded', data: { assetId, index, base64 } })),
    ]
  },
}
