import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { ZodTypeProvider } from '../http/zod.js'
import { NotFound, PermissionDenied } from '../kernel/errors.js'
import type { ExportDeps } from './deps.js'
import { sendContent } from './content-reply.js'
import { extensionOf } from './filename.js'
import { issuedExportLinkSecret } from './link-key.js'
import { readAssetToken } from './link.js'
import { exportContent, isLive } from './service.js'

const Params = z.object({ filename: z.string().max(1000) })
const Query = z.looseObject({ token: z.string().max(4000).optional() })

/**
 * The public face of a signed asset link (`assetLink`), needing no API key: `GET
 * /exporter/<filename>?token=…` answers the asset's content while the token's time lasts. A
 * token not signed with the installation's link key is 403; an expired one, or one for an
 * asset that is gone or expired, is 404. As in PostHog, the file name only has to end with the
 * asset's extension.
 */
export const exporterRoutes: FastifyPluginAsync<ExportDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>()
  app.get('/exporter/:filename', { schema: { params: Params, querystring: Query } }, async (request, reply) => {
    const now = new Date()
    const token = request.query.token
    if (token === undefined) throw new NotFound()
    const secret = await issuedExportLinkSecret(deps.log)
    const reading = secret === null ? { kind: 'forged' as const } : readAssetToken(token, secret, now)
    if (reading.kind === 'forged') throw new PermissionDenied('The link is not valid.')
    if (reading.kind === 'expired') throw new NotFound()
    const asset = await deps.models.get('exported_assets', String(reading.assetId))
    if (!asset || !isLive(asset, now) || !request.params.filename.endsWith(`.${extensionOf(asset.export_format)}`)) throw new NotFound()
    return sendContent(reply, asset, await exportContent(deps.models, asset))
  })
}
