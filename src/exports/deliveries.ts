/**
 * What deliveries (e-mail, Slack, webhooks) use of exports: a picture of an insight made as any
 * export is, the installation's key for signing links, and a signed link to an export's content
 * that needs no API key.
 */
export { createInsightPicture } from './service.js'
export type { ExportDeps } from './deps.js'
export type { ExportedAsset } from './document.js'
export { exportLinkSecret } from './link-key.js'
export { assetLink } from './link.js'
