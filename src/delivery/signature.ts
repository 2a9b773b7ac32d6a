import { createHmac, timingSafeEqual } from 'node:crypto'

/** The header a webhook delivery carries: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the secret>`. */
export const SIGNATURE_HEADER = 'x-hedgelog-signature'

const mac = (secret: string, timestamp: string, body: string): Buffer =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest()

export const signatureHeader = (secret: string, body: string, at: Date): string => {
  const timestamp = String(Math.floor(at.getTime() / 1000))
  return `t=${timestamp},v1=${mac(secret, timestamp, body).toString('hex')}`
}

/** True when `header` signs exactly `body` with `secret`, made within `toleranceSeconds` of `now`. */
export const verifySignature = (secret: string, body: string, header: string, now: Date, toleranceSeconds = 300): boolean => {
  const parts = new Map(header.split(',').map((part) => {
    const at = part.indexOf('=')
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const
  }))
  const timestamp = parts.get('t') ?? ''
  const given = Buffer.from(parts.get('v1') ?? '', 'hex')
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds) return false
  const expected = mac(secret, timestamp, body)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
