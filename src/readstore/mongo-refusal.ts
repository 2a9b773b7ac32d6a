import { BSON, MongoServerError } from 'mongodb'

/** MongoDB's documented limits: 100 levels of nesting, 16 MiB per BSON document. */
export const MAX_DEPTH = 100
export const MAX_BYTES = 16 * 1024 * 1024

/**
 * Nesting depth counted as MongoDB documents it: the document is the first level, and every
 * object or array inside adds one. Iterative, so that no depth can overflow the stack.
 */
export const nestingDepth = (doc: object): number => {
  let deepest = 0
  const pending: [value: object, depth: number][] = [[doc, 1]]
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!
    if (depth > deepest) deepest = depth
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === 'object') pending.push([child as object, depth + 1])
    }
  }
  return deepest
}

/**
 * Why MongoDB could never hold this document as stored (escaped keys, `_id` included), or null.
 * Checked before the transaction, so the refusal is the same on every attempt. The server counts
 * for itself: whether its count agrees to the level only a real server shows, and its own
 * refusals are classified by `refusalOf` too.
 */
export const documentRefusal = (stored: object): string | null => {
  const depth = nestingDepth(stored)
  if (depth > MAX_DEPTH) return `nested ${depth} levels deep; MongoDB holds at most ${MAX_DEPTH}`
  const bytes = BSON.calculateObjectSize(stored)
  if (bytes > MAX_BYTES) return `${bytes} bytes as BSON; MongoDB holds at most ${MAX_BYTES}`
  return null
}

/**
 * Server codes for a document it will never store: BSONObjectTooLarge, updates that would grow one
 * past the limit, DocumentValidationFailure (a collection's validator) and KeyTooLong (an index key
 * over the limit of servers before 4.2).
 */
const REFUSED_CODES = new Set([10334, 17419, 17420, 121, 17280])
/** BadValue and Overflow carry "too large" and "too deep" refusals among others; the message tells them apart. */
const REFUSAL_MESSAGE = /too (large|deep|big)|nesting depth|exceeds maximum|larger than the maximum|larger than \d+/i

/**
 * Why this error from a write means the server refused a document for good, or null when it
 * means anything else (transient errors, conflicts, a lost connection). A pure function of the
 * error, so that the same failure is classified the same way every time.
 */
export const refusalOf = (error: unknown): string | null => {
  if (error instanceof RangeError && /call stack/i.test(error.message)) return 'too deeply nested to serialise'
  if (!(error instanceof Error)) return null
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors
  const first = Array.isArray(writeErrors) ? writeErrors[0] as { code?: unknown; errmsg?: unknown } | undefined
    : writeErrors && typeof writeErrors === 'object' ? writeErrors as { code?: unknown; errmsg?: unknown } : undefined
  const code = typeof first?.code === 'number' ? first.code : error instanceof MongoServerError ? error.code : undefined
  const message = typeof first?.errmsg === 'string' ? first.errmsg : error.message
  if (typeof code === 'number' && REFUSED_CODES.has(code)) return message
  if ((code === 2 || code === 15 || error.name === 'BSONError' || error.name === 'MongoInvalidArgumentError') && REFUSAL_MESSAGE.test(message)) return message
  return null
}

/** The index, within one bulk write, of the operation a refusal concerns, when the error says. */
export const refusedIndex = (error: unknown): number | undefined => {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors
  const first = Array.isArray(writeErrors) ? writeErrors[0] : writeErrors
  const index = (first as { index?: unknown } | undefined)?.index
  return typeof index === 'number' ? index : undefined
}
