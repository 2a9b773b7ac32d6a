import type { FastifyReply } from 'fastify'
import type { ExportedAssetDocument } from './document.js'

/** How long a client may keep an export's content (PostHog's `MAX_AGE_CONTENT`, a day): it never changes. */
const MAX_AGE_SECONDS = 86_400

/**
 * An export's bytes under its format's type, named as a file to save. PostHog names the file
 * only when asked with `?download=true`; naming it always changes nothing for a client that
 * shows it (an `<img>` ignores the header) and saves every other one from guessing the name.
 */
export const sendContent = (reply: FastifyReply, asset: ExportedAssetDocument, content: Buffer) =>
  reply
    .header('content-type', asset.export_format)
    .header('content-disposition', `attachment; filename="${asset.filename}"`)
    .header('cache-control', `max-age=${MAX_AGE_SECONDS}`)
    .send(content)
