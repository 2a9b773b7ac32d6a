import { createHash } from 'node:crypto'

/** Our namespace for name-based event ids (a fixed random UUID). */
const NAMESPACE = Buffer.from('6f1d0c2e8b7a4e5f9c3d2a1b0e9f8d7c', 'hex')

/**
 * A UUID version 5 (RFC 9562: SHA-1 of namespace and name) for a log event whose identity is its
 * place, such as `<stream>:<index>`: appending the same plan again is then recognised by the log
 * as a retry and not written twice.
 */
export const stableEventId = (name: string): string => {
  const hash = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.toString('hex', 0, 16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const HEX32 = /^[0-9a-f]{32}$/

/**
 * The id of a request's first log event: the request id itself when it already is a UUID, or its
 * 32 hex digits written as a name-based UUID. Like `stableEventId` it depends on the request id
 * alone, so a retried request is recognised, without hashing on the hot path.
 */
export const requestEventId = (requestId: string): string => {
  if (UUID.test(requestId)) return requestId
  if (!HEX32.test(requestId)) return stableEventId(requestId)
  const variant = ((parseInt(requestId[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${requestId.slice(0, 8)}-${requestId.slice(8, 12)}-5${requestId.slice(13, 16)}-${variant}${requestId.slice(17, 20)}-${requestId.slice(20, 32)}`
}
