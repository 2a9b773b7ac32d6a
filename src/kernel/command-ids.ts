import { createHash } from 'node:crypto'

/**
 * The id of the `index`-th event a command writes to `stream`: a UUID (version 8, RFC 9562's
 * form for ids made by a function of one's own) of a SHA-256 over the three. A command retried
 * with the same command id writes events with the same ids, so the log recognises the retry and
 * the command handler finds a command that already landed instead of deciding it again.
 */
export const commandEventId = (commandId: string, stream: string, index: number): string => {
  const bytes = createHash('sha256').update(`${commandId}\n${stream}\n${index}`).digest().subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x80
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

/** A command id from a client's `Idempotency-Key`: the same key from the same caller on the same route names the same command. */
export const keyedCommandId = (caller: string, route: string, key: string): string =>
  createHash('sha256').update(`${caller}\n${route}\n${key}`).digest('hex').slice(0, 32)
