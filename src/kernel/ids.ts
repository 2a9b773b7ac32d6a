import { randomBytes, randomFillSync } from 'node:crypto'
import { ulid } from 'ulid'

const formatUuid = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`

const pool = Buffer.alloc(16 * 512)
let poolOffset = pool.length

/**
 * A fresh, time-ordered id in UUID form (RFC 9562 version 7: 48 bits of Unix milliseconds, then
 * random bits), so EventStoreDB accepts it and ids sort by creation time. Randomness is drawn
 * from a pooled buffer: event ids are minted on the hot ingestion path.
 */
export const newEventId = (now = Date.now()): string => {
  if (poolOffset + 10 > pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const bytes = Buffer.allocUnsafe(16)
  bytes.writeUIntBE(now, 0, 6)
  pool.copy(bytes, 6, poolOffset, poolOffset + 10)
  poolOffset += 10
  bytes[6] = (bytes[6]! & 0x0f) | 0x70
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  return formatUuid(bytes.toString('hex'))
}

export const newUlid = (now?: number): string => ulid(now)

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** A random token of `bytes` random bytes in base 62, as PostHog's `phc_`/`phx_` tokens are. */
export const randomToken = (prefix: string, bytes = 32): string => {
  let value = BigInt(`0x${randomBytes(bytes).toString('hex')}`)
  const length = Math.ceil((bytes * 8) / Math.log2(62))
  let out = ''
  for (let i = 0; i < length; i++) {
    out = BASE62[Number(value % 62n)]! + out
    value /= 62n
  }
  return prefix + out
}

/** A random version 4 UUID. */
export const randomUuid = (): string => crypto.randomUUID()
