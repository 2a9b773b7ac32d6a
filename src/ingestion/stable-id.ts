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
