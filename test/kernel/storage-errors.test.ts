import t from 'tap'
import { Metadata, status } from '@grpc/grpc-js'
import {
  AccessDeniedError, DeadlineExceededError, MaxAppendSizeExceededError, NO_STREAM, StreamDeletedError, TimeoutError, UnavailableError,
  WrongExpectedVersionError, convertToCommandError,
} from '@eventstore/db-client'
import {
  MongoNetworkError, MongoNetworkTimeoutError, MongoNotConnectedError, MongoOperationTimeoutError, MongoServerError,
  MongoTopologyClosedError, MongoWriteConcernError,
} from 'mongodb'
import { isStoreFault, isTransientStoreError } from '../../src/kernel/storage-errors.js'

const serverError = (code: number, errorLabels: string[] = [], errmsg = `server error ${code}`) => new MongoServerError({ code, errmsg, errorLabels })

/** A gRPC error as the channel raises it, with the metadata EventStoreDB attaches. */
const grpcError = (code: status, details: string, entries: Record<string, string> = {}) => {
  const metadata = new Metadata()
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value)
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata })
}

const TRANSIENT_MONGO_CODES = {
  HostUnreachable: 6, HostNotFound: 7, LockTimeout: 24, WriteConcernFailed: 64, NetworkTimeout: 89, ShutdownInProgress: 91,
  WriteConflict: 112, PrimarySteppedDown: 189, ExceededTimeLimit: 262, SocketException: 9001, NotWritablePrimary: 10107,
  InterruptedAtShutdown: 11600, InterruptedDueToReplStateChange: 11602, NotPrimaryNoSecondaryOk: 13435, NotPrimaryOrSecondary: 13436,
}

t.test('MongoDB server codes of a failover, a shutdown, an unreachable member or a timeout are transient', async (t) => {
  for (const [name, code] of Object.entries(TRANSIENT_MONGO_CODES)) {
    t.ok(isTransientStoreError(serverError(code)), `${name} (${code})`)
    t.ok(isStoreFault(serverError(code)), `${name} (${code}) is a store's fault`)
  }
})

t.test('MongoDB errors labelled as retryable are transient, whatever their code', async (t) => {
  for (const label of ['RetryableWriteError', 'TransientTransactionError', 'UnknownTransactionCommitResult', 'ResetPool', 'ResumableChangeStreamError', 'NoWritesPerformed']) {
    t.ok(isTransientStoreError(serverError(1, [label], 'internal error')), label)
  }
  t.notOk(isTransientStoreError(serverError(1, ['HandshakeError'], 'internal error')), 'a label that says nothing of retrying')
})

t.test('a write concern that was not satisfied is transient', async (t) => {
  const timedOut = new MongoWriteConcernError({ writeConcernError: { code: 64, errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } }, ok: 1 })
  t.ok(isTransientStoreError(timedOut))
  const bulk = Object.assign(serverError(0, [], 'bulk write had a write concern error'), { writeConcernError: { code: 100, errmsg: 'Not enough data-bearing nodes' } })
  t.ok(isTransientStoreError(bulk), 'a write concern error attached to another error')
})

t.test('the MongoDB driver\'s own errors of an unreachable or closed deployment are transient', async (t) => {
  const errors = [
    new MongoNetworkError('connection 4 to 10.0.0.2:27017 closed'), new MongoNetworkTimeoutError('connection timed out'),
    new MongoNotConnectedError('client must be connected'), new MongoTopologyClosedError(), new MongoOperationTimeoutError('timed out'),
  ]
  for (const error of errors) t.ok(isTransientStoreError(error), error.name)
})

t.test('MongoDB\'s refusals of a document are never transient, even with a retryable label', async (t) => {
  const refusals = {
    BadValue: serverError(2, [], 'BSONObj exceeds maximum nested object depth'), Overflow: serverError(15, [], 'too deep'),
    DocumentValidationFailure: serverError(121, [], 'Document failed validation'), BSONObjectTooLarge: serverError(10334, [], 'object to insert too large'),
    KeyTooLong: serverError(17280, [], 'key too large to index'), UpdateTooLarge: serverError(17419, [], 'Resulting document after update is larger than 16777216'),
    DuplicateKey: serverError(11000, [], 'E11000 duplicate key error'),
  }
  for (const [name, error] of Object.entries(refusals)) t.notOk(isTransientStoreError(error), name)
  t.notOk(isTransientStoreError(serverError(10334, ['TransientTransactionError'])), 'a too large document inside a transaction')
  const inBulk = Object.assign(serverError(0), { writeErrors: [{ index: 2, code: 10334, errmsg: 'object to insert too large' }] })
  t.notOk(isTransientStoreError(inBulk), 'the first write error of a bulk write decides')
  t.notOk(isTransientStoreError(serverError(14, [], 'TypeMismatch')), 'a MongoDB code is not read as a gRPC status')
})

t.test('EventStoreDB errors of a node that is down, slow, not the leader or busy are transient', async (t) => {
  t.ok(isTransientStoreError(new UnavailableError(undefined)), 'unavailable')
  t.ok(isTransientStoreError(new DeadlineExceededError(undefined)), 'deadline exceeded')
  t.ok(isTransientStoreError(new TimeoutError(undefined)), 'timeout (gRPC ABORTED)')
  const notLeader = convertToCommandError(grpcError(status.NOT_FOUND, 'Leader info available', {
    exception: 'not-leader', 'leader-endpoint-host': '10.0.0.3', 'leader-endpoint-port': '2113',
  }) as never)
  t.equal((notLeader as { type?: string }).type, 'not-leader')
  t.ok(isTransientStoreError(notLeader), 'not the leader')
  for (const code of [status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.RESOURCE_EXHAUSTED, status.ABORTED]) {
    t.ok(isTransientStoreError(grpcError(code, 'transport')), `raw gRPC ${status[code]}`)
    t.ok(isTransientStoreError(convertToCommandError(grpcError(code, 'transport') as never)), `the client's error for ${status[code]}`)
  }
  t.ok(isTransientStoreError(convertToCommandError(grpcError(status.UNKNOWN, 'Server Is Not Ready') as never)), 'a node that is not ready')
})

t.test('EventStoreDB refusals and conflicts are not transient', async (t) => {
  t.notOk(isTransientStoreError(new WrongExpectedVersionError(undefined, { streamName: 's', expected: NO_STREAM, current: 3n })))
  t.notOk(isTransientStoreError(new MaxAppendSizeExceededError(undefined, 1_048_576)))
  t.notOk(isTransientStoreError(StreamDeletedError.fromStreamName('s')))
  t.notOk(isTransientStoreError(new AccessDeniedError(undefined)))
  const tooLarge = grpcError(status.RESOURCE_EXHAUSTED, 'Received message larger than max (20000000 vs. 17825792)')
  t.notOk(isTransientStoreError(tooLarge), 'a message over the channel limit')
  t.notOk(isTransientStoreError(convertToCommandError(tooLarge as never)), 'and the client\'s error for it')
})

t.test('SQLite and socket codes are classified as before', async (t) => {
  const coded = (code: string) => Object.assign(new Error(code), { code })
  for (const code of ['SQLITE_BUSY', 'SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'ECONNREFUSED']) t.ok(isTransientStoreError(coded(code)), code)
  for (const code of ['SQLITE_CONSTRAINT', 'SQLITE_TOOBIG', 'SQLITE_CORRUPT']) t.notOk(isTransientStoreError(coded(code)), code)
  t.notOk(isStoreFault(coded('ECONNRESET')), 'a client\'s dropped connection is no store fault')
  t.notOk(isTransientStoreError(new TypeError('x')))
  t.notOk(isTransientStoreError('SQLITE_BUSY'), 'only errors')
})
