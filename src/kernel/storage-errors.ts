/** SQLite result codes and socket codes of a store that is busy, full, unreadable or unreachable for now. */
const TRANSIENT_CODES = /^(SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|NOMEM|INTERRUPT|PROTOCOL)|ECONN|ETIMEDOUT|EPIPE|EAI_AGAIN)/

/**
 * Our adapters' own Unavailable, and the MongoDB driver's errors that never reach a server and so
 * carry no server code: unreachable, timed out, pool cleared or closed under us. Every error a
 * MongoDB server sends has one class name (MongoServerError), so those are told by code and label.
 */
const TRANSIENT_NAMES = new Set([
  'Unavailable', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError',
  'MongoTopologyClosedError', 'MongoPoolClearedError', 'PoolClearedOnNetworkError', 'MongoWaitQueueTimeoutError',
  'MongoOperationTimeoutError',
])

/** Labels the MongoDB server or driver puts on an error to say the operation may be tried again. */
const MONGO_TRANSIENT_LABELS = new Set([
  'RetryableWriteError', 'TransientTransactionError', 'UnknownTransactionCommitResult', 'ResetPool', 'PoolRequstedRetry',
  'InterruptInUseConnections', 'ResumableChangeStreamError', 'NoWritesPerformed',
])

/**
 * MongoDB server codes of a member that is stepping down, shutting down, unreachable or busy (the
 * driver's retryable-write list, plus lock and write-concern timeouts), and of a deployment that
 * cannot take writes as configured (credentials, write concern): no event causes any of them.
 */
const MONGO_TRANSIENT_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  13, // Unauthorized
  18, // AuthenticationFailed
  24, // LockTimeout
  46, // LockBusy
  50, // MaxTimeMSExpired
  64, // WriteConcernFailed (WriteConcernTimeout since 8.1)
  79, // UnknownReplWriteConcern
  89, // NetworkTimeout
  91, // ShutdownInProgress
  100, // UnsatisfiableWriteConcern
  112, // WriteConflict
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
])

/**
 * MongoDB server codes that refuse a document for what it is, whatever the labels say: BadValue
 * and Overflow (too deep), DocumentValidationFailure, BSONObjectTooLarge, KeyTooLong, and updates
 * that would grow a document past 16 MiB. The same write fails the same way every time.
 */
const MONGO_REFUSAL_CODES = new Set([2, 15, 121, 10334, 17280, 17419, 17420])

/** EventStoreDB client error types of a node that is down, slow, not the leader or shedding load. */
const ESDB_TRANSIENT_TYPES = new Set(['unavailable', 'deadline-exceeded', 'not-leader', 'timeout', 'cancelled'])
/** gRPC status codes: DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, UNAVAILABLE. */
const GRPC_TRANSIENT_STATUS = new Set([4, 8, 10, 14])
const GRPC_RESOURCE_EXHAUSTED = 8
/** RESOURCE_EXHAUSTED also reports a message over the channel's size limit, which no retry changes. */
const GRPC_TOO_LARGE = /larger than max/i
/** What EventStoreDB answers while it starts, elects a leader or sheds load (as UNKNOWN). */
const ESDB_NOT_READY_OR_BUSY = /server is (not ready|busy)/i

type Fields = { code?: unknown; codeName?: unknown; errorLabels?: unknown; writeErrors?: unknown; writeConcernError?: unknown; type?: unknown; details?: unknown; metadata?: unknown }

const firstWriteErrorCode = (writeErrors: unknown): unknown => {
  const first: unknown = Array.isArray(writeErrors) ? writeErrors[0] : writeErrors
  return first !== null && typeof first === 'object' ? (first as { code?: unknown }).code : undefined
}

/** A MongoDB error (server or driver): it carries a list of labels, possibly empty. */
const isMongoError = (error: Fields): boolean => Array.isArray(error.errorLabels)

const isMongoRefusal = (error: Fields): boolean => {
  const code = firstWriteErrorCode(error.writeErrors) ?? error.code
  return typeof code === 'number' && MONGO_REFUSAL_CODES.has(code)
}

const isMongoTransient = (error: Fields): boolean => {
  if (isMongoRefusal(error)) return false
  if ((error.errorLabels as unknown[]).some((label) => MONGO_TRANSIENT_LABELS.has(String(label)))) return true
  // The write was applied but not acknowledged by enough members: what was asked may be tried again.
  if (error.writeConcernError !== null && typeof error.writeConcernError === 'object') return true
  const code = firstWriteErrorCode(error.writeErrors) ?? error.code
  return typeof code === 'number' && MONGO_TRANSIENT_CODES.has(code)
}

/** An EventStoreDB client error (it has a `type`), or a raw gRPC error (`details` and `metadata`). */
const isGrpcError = (error: Fields): boolean =>
  typeof error.type === 'string' || (typeof error.details === 'string' && error.metadata !== undefined)

const isGrpcTransient = (error: Fields, message: string): boolean => {
  if (typeof error.type === 'string' && ESDB_TRANSIENT_TYPES.has(error.type)) return true
  if (ESDB_NOT_READY_OR_BUSY.test(message)) return true
  const code = error.code
  if (typeof code !== 'number' || !GRPC_TRANSIENT_STATUS.has(code)) return false
  return !(code === GRPC_RESOURCE_EXHAUSTED && GRPC_TOO_LARGE.test(`${message} ${String(error.details ?? '')}`))
}

/** A transient error a store's driver raised, by name for driver-side errors, by code and label for servers'. */
const isDriverTransient = (error: Error): boolean => {
  if (TRANSIENT_NAMES.has(error.name)) return true
  const fields = error as Fields
  if (isMongoError(fields)) return isMongoTransient(fields)
  return isGrpcError(fields) && isGrpcTransient(fields, error.message)
}

/**
 * Whether a store failed for a reason that passes without the data changing (busy, full,
 * unreachable, a failover, a deployment to fix): worth a retry and a 503, never a reason to skip
 * data. A store's refusal of a document (too deep, too large, invalid) is never transient.
 */
export const isTransientStoreError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false
  const code = (error as Fields).code
  return isDriverTransient(error) || (typeof code === 'string' && TRANSIENT_CODES.test(code))
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
  const code = (error as Fields).code
  return isDriverTransient(error) || (typeof code === 'string' && code.startsWith('SQLITE_'))
}
