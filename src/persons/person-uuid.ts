import { createHash } from 'node:crypto'

/** The namespace PostHog derives person UUIDs in. */
export const PERSON_UUID_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22'

const namespaceBytes = (namespace: string): Buffer => Buffer.from(namespace.replace(/-/g, ''), 'hex')

/** RFC 9562 version 5: SHA-1 of the namespace and the name, with version and variant bits set. */
export const uuidV5 = (name: string, namespace: string): string => {
  const hash = createHash('sha1').update(namespaceBytes(namespace)).update(name, 'utf8').digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

/** A person's UUID follows from the first distinct id it was created with, so replays agree. */
export const personUuid = (environmentId: number, distinctId: string): string =>
  uuidV5(`${environmentId}:${distinctId}`, PERSON_UUID_NAMESPACE)
