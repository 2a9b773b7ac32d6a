import type { MongoClientOptions } from 'mongodb'

/** How long the MongoDB driver waits, each in milliseconds. */
export interface MongoTimeouts {
  /** For a server that can take the operation (`serverSelectionTimeoutMS`); the driver's default is 30 s. */
  readonly serverSelectionMs: number
  /** For a new connection to open (`connectTimeoutMS`). */
  readonly connectMs: number
  /** For an answer on an open connection (`socketTimeoutMS`); 0 waits for ever. */
  readonly socketMs: number
}

const KEYS = { serverSelectionMs: 'serverSelectionTimeoutMS', connectMs: 'connectTimeoutMS', socketMs: 'socketTimeoutMS' } as const

/**
 * The client options for `timeouts`, leaving out each one the connection string sets itself
 * (the driver would otherwise let the object's value win over the operator's URL).
 */
export const mongoTimeoutOptions = (url: string, timeouts: MongoTimeouts): MongoClientOptions => {
  const query = url.indexOf('?')
  const named = new Set(query < 0 ? [] : url.slice(query + 1).split('&').map((pair) => (pair.split('=')[0] ?? '').toLowerCase()))
  const options: Record<string, number> = {}
  for (const [field, key] of Object.entries(KEYS)) {
    if (!named.has(key.toLowerCase())) options[key] = timeouts[field as keyof MongoTimeouts]
  }
  return options
}
