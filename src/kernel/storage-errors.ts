/** Driver error codes of a store that is busy, full, unreadable or unreachable for now. */
const TRANSIENT_CODES = /^(SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|NOMEM|INTERRUPT|PROTOCOL)|ECONN|ETIMEDOUT|EPIPE|EAI_AGAIN)/
const TRANSIENT_NAMES = new Set(['Unavailable', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError', 'MongoTopologyClosedError'])

/**
 * Whether a store failed for a reason that passes by itself (busy, full, unreachable): worth a
 * retry and a 503, never a reason to skip data.
 */
export const isTransientStoreError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  return TRANSIENT_NAMES.has(error.name) || (typeof code === 'string' && TRANSIENT_CODES.test(code))
}

/** A store that cannot be used at all until an operator acts (a damaged file). */
export const isBrokenStoreError = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code)
}

/**
 * A failure that certainly came from a store (a driver's error), as opposed to a client's
 * connection dropping, which carries the same socket codes.
 */
export const isStoreFault = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  return TRANSIENT_NAMES.has(error.name) || (typeof code === 'string' && code.startsWith('SQLITE_'))
}
