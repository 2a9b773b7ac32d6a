import t from 'tap'
import { Metadata } from '@grpc/grpc-js'
import {
  CancelledError, DeadlineExceededError, MaxAppendSizeExceededError, NO_STREAM, StreamDeletedError, StreamNotFoundError,
  UnavailableError, UnknownError, WrongExpectedVersionError,
} from '@eventstore/db-client'
import { MaxAppendSizeExceeded, StreamDeleted, StreamNotFound, Unavailable, WrongExpectedVersion } from '../../src/eventlog/errors.js'
import { toWriteError } from '../../src/eventlog/esdb.js'
import { fromClientRecord, isSystemRecord, toEventLogError, toReadPosition } from '../../src/eventlog/esdb-subscription.js'
import { fromStored, storedPath, toStored } from '../../src/readstore/mongo-keys.js'
import { withDefaultDeadline } from '../../src/eventlog/esdb-options.js'
import { mongoTimeoutOptions } from '../../src/readstore/mongo-timeouts.js'

// The production adapters run against real servers in the contract suites when URLs are given;
// these checks cover the translation code they share with every call, in every run.

t.test('EventStoreDB conflicts become ours, in our spelling', async (t) => {
  const absent = toWriteError(new WrongExpectedVersionError(undefined, { streamName: 's', expected: NO_STREAM, current: BigInt(-1) }), 's', 'no_stream', 10)
  t.same(absent, new WrongExpectedVersion('s', 'no_stream', 'no_stream'))
  const existing = toWriteError(new WrongExpectedVersionError(undefined, { streamName: 's', expected: 1n, current: 3n }), 's', 1n, 10)
  t.ok(existing instanceof WrongExpectedVersion)
  t.same([(existing as WrongExpectedVersion).expected, (existing as WrongExpectedVersion).actual], [1n, 3n])
  const size = toWriteError(new MaxAppendSizeExceededError(undefined, 1_048_576), 's', 'any', 2_000_000)
  t.same([size instanceof MaxAppendSizeExceeded, (size as MaxAppendSizeExceeded).maxAppendSize], [true, 1_048_576])
})

t.test('EventStoreDB read and transport errors become ours; others pass unchanged', async (t) => {
  t.ok(toEventLogError(new StreamNotFoundError(undefined, 'a'), 'a') instanceof StreamNotFound)
  t.ok(toEventLogError(new StreamDeletedError(undefined, 'a'), 'a') instanceof StreamDeleted)
  for (const error of [new UnavailableError(undefined), new CancelledError(undefined), new DeadlineExceededError(undefined)]) {
    t.ok(toEventLogError(error) instanceof Unavailable, `${error.constructor.name} is Unavailable`)
  }
  const refused = Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: 'No connection established' })
  t.ok(toEventLogError(refused) instanceof Unavailable, 'a raw gRPC UNAVAILABLE (the feature probe before an append) is Unavailable')
  t.ok(toWriteError(refused, 's', 'any', 1) instanceof Unavailable, 'and so it is on the write side')
  for (const reply of ['Server Is Not Ready', 'Server Is Busy']) {
    const unknown = new UnknownError(Object.assign(new Error(`2 UNKNOWN: ${reply}`), { code: 2, details: reply }) as never)
    t.ok(toEventLogError(unknown) instanceof Unavailable, `"${reply}" is Unavailable`)
    t.ok(toWriteError(unknown, 's', 'any', 1) instanceof Unavailable, `"${reply}" is Unavailable on the write side`)
  }
  for (const [code, name] of [[8, 'RESOURCE_EXHAUSTED'], [10, 'ABORTED']] as const) {
    const raw = Object.assign(new Error(`${code} ${name}: try again`), { code, details: 'try again', metadata: new Metadata() })
    t.ok(toEventLogError(raw) instanceof Unavailable, `a raw gRPC ${name} is Unavailable`)
  }
  const tooLarge = Object.assign(new Error('8 RESOURCE_EXHAUSTED: Received message larger than max'), { code: 8, details: 'Received message larger than max', metadata: new Metadata() })
  t.notOk(toEventLogError(tooLarge) instanceof Unavailable, 'a message over the channel limit is not')
  const other = new RangeError('x')
  t.equal(toEventLogError(other), other)
})

t.test('EventStoreDB records become ours, and system records are recognised', async (t) => {
  const record = {
    streamId: 'dashboard-1', id: 'e0c3a2f0-0000-7000-8000-000000000001', revision: 2n, type: 'DashboardCreated',
    data: { name: 'x' }, metadata: { actor: 'u' }, created: new Date(5), position: { commit: 10n, prepare: 10n },
  }
  t.same(fromClientRecord(record), { ...record, position: { commit: 10n, prepare: 10n } })
  t.equal(isSystemRecord(record), false)
  t.equal(isSystemRecord({ ...record, type: '$metadata' }), true)
  t.equal(isSystemRecord({ ...record, streamId: '$$dashboard-1' }), true)
  t.equal(toReadPosition('start'), toReadPosition({ commit: -1n, prepare: -1n }), 'a negative position reads from the start')
})

t.test('MongoDB keys survive PostHog property names: $-prefixed, dotted, percent, _id', async (t) => {
  const doc = {
    id: 'p1', _id: 'user data', properties: { $browser: 'Firefox', 'utm.source': 'x', '100%': 1, nested: [{ $set: { 'a.b': null } }] },
  }
  const stored = toStored(doc)
  const keys = JSON.stringify(stored)
  t.notMatch(keys, /"\$|"[^"]*\.[^"]*":/, 'no stored key starts with $ or contains a dot')
  t.notOk('_id' in stored, 'a user _id does not take the document id')
  t.same(fromStored({ _id: 'p1', ...stored }), doc, 'reading back gives the document written')
  t.equal(storedPath('properties.$browser'), 'properties.%24browser')
  t.equal(storedPath('_id'), '%5Fid')
})

t.test('given throwOnAppendFailure=false in any spelling, when connecting to EventStoreDB, then the connection string is refused', async (t) => {
  const { EsdbEventLog } = await import('../../src/eventlog/esdb.js')
  const { refusedEsdbOption } = await import('../../src/eventlog/esdb-options.js')
  for (const url of ['esdb://h:2113?throwOnAppendFailure=false', 'esdb://h:2113?tls=false&throw-on-append-failure=false', 'esdb://h?ThrowOnAppendFailure= false']) {
    t.throws(() => EsdbEventLog.connect(url), { name: 'TypeError', message: /throwOnAppendFailure/ }, url)
  }
  t.equal(refusedEsdbOption('esdb://h:2113?tls=false'), null)
  t.equal(refusedEsdbOption('esdb://h:2113?tls=false&throwOnAppendFailure=true'), null)
})

t.test('the EventStoreDB deadline is added to a connection string that names none, and one it names is kept', async (t) => {
  t.equal(withDefaultDeadline('esdb://localhost:2113', 300), 'esdb://localhost:2113?defaultDeadline=300')
  t.equal(withDefaultDeadline('esdb://localhost:2113?tls=false', 300), 'esdb://localhost:2113?tls=false&defaultDeadline=300')
  t.equal(withDefaultDeadline('esdb+discover://a,b?default_deadline=50', 300), 'esdb+discover://a,b?default_deadline=50')
})

t.test('MongoDB timeouts the connection string sets are left to it', async (t) => {
  const timeouts = { serverSelectionMs: 10_000, connectMs: 5000, socketMs: 60_000 }
  t.same(mongoTimeoutOptions('mongodb://a/?replicaSet=rs0', timeouts), { serverSelectionTimeoutMS: 10_000, connectTimeoutMS: 5000, socketTimeoutMS: 60_000 })
  t.same(mongoTimeoutOptions('mongodb+srv://a/?serverselectiontimeoutms=2000', timeouts), { connectTimeoutMS: 5000, socketTimeoutMS: 60_000 })
})
