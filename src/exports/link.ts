import { createHmac, timingSafeEqual } from 'node:crypto'
import type { ExportedAssetDocument } from './document.js'

/** Who a link's token is for, as PostHog's JWTs for exported assets name it. */
const AUDIENCE = 'posthog:exported_asset'

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')

const signature = (secret: string, signed: string): Buffer => createHmac('sha256', secret).update(signed).digest()

/** A token for one asset until `expiresAt`: a JWT (HS256) of `{id, exp, aud}`, as PostHog signs its asset links. */
export const assetToken = (assetId: number, expiresAt: Date, secret: string): string => {
  const payload = Buffer.from(JSON.stringify({ id: assetId, exp: Math.floor(expiresAt.getTime() / 1000), aud: AUDIENCE })).toString('base64url')
  const signed = `${HEADER}.${payload}`
  return `${signed}.${signature(secret, signed).toString('base64url')}`
}

/** What a token says: the asset it opens, or that it was forged (or damaged), or that it expired. */
export type TokenReading = { readonly kind: 'valid'; readonly assetId: number } | { readonly kind: 'forged' } | { readonly kind: 'expired' }

/** Reads a token signed by `assetToken`; the signature is checked before anything it says is believed. */
export const readAssetToken = (token: string, secret: string, now: Date): TokenReading => {
  const parts = token.split('.')
  if (parts.length !== 3 || parts[0] !== HEADER) return { kind: 'forged' }
  const given = Buffer.from(parts[2]!, 'base64url')
  const expected = signature(secret, `${parts[0]}.${parts[1]}`)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { kind: 'forged' }
  let claims: { id?: unknown; exp?: unknown; aud?: unknown }
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as typeof claims
  } catch {
    return { kind: 'forged' }
  }
  if (claims.aud !== AUDIENCE || !Number.isSafeInteger(claims.id) || typeof claims.exp !== 'number') return { kind: 'forged' }
  if (claims.exp * 1000 <= now.getTime()) return { kind: 'expired' }
  return { kind: 'valid', assetId: claims.id as number }
}

/**
 * An absolute link to an asset's content that needs no API key, valid until `expiresAt`:
 * `<publicUrl>/exporter/<filename>?token=<signed token>`, the form of PostHog's public asset
 * links in subscription e-mails and Slack messages. `secret` is the installation's link key
 * (`exportLinkSecret`).
 */
export const assetLink = (publicUrl: string, asset: Pick<ExportedAssetDocument, 'id' | 'filename'>, expiresAt: Date, secret: string): string =>
  `${publicUrl.replace(/\/+$/, '')}/exporter/${encodeURIComponent(asset.filename)}?token=${assetToken(asset.id, expiresAt, secret)}`
