import t, { type Test } from 'tap'
import { join } from 'node:path'
import { MongoServerError, MongoWriteConcernError } from 'mongodb'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import type { EventLog } from '../../src/eventlog/port.js'
import { newEventId } from '../../src/kernel/ids.js'
import type { CommitBatch, DocumentChange, ReadStore } from '../../src/readstore/port.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ProjectionRunner } from '../../projections/runner.js'
import { quarantinedEvents } from '../../projections/quarantine.js'
import { tempDir } from '../support/temp.js'

const visits: Projector = {
  name: 'visits', version: 1, collections: ['visits'], handles: ['Visited'],
  apply(view, event) {
    const page = String(event.data['page'])
    view.put('visits', page, { id: page, page })
  },
}

/**
 * The real embedded store, whose commits of documents fail `times` times with `error()` and then
 * go through: what a projection meets while a replica set elects a new primary.
 */
const failingCommits = (store: ReadStore, times: number, error: () => Error): ReadStore => {
  let left = times
  return Object.create(store, {
    commit: {
      value: async (batch: CommitBatch) => {
        if (batch.changes.length > 0 && left > 0) {
          left--
          throw error()
        }
        return store.commit(batch)
      },
    },
  }) as ReadStore
}

const project = async (t: Test, error: () => Error, failures = 3) => {
  const log: EventLog = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: join(tempDir(t), 'readmodels.sqlite') })
  const reported: unknown[] = []
  const quarantined: DocumentChange[] = []
  const runner = new ProjectionRunner({
    log, store: failingCommits(store, failures, error), projector: visits, build: { version: 1, build: 1 },
    onError: (cause, fatal) => reported.push({ cause, fatal }), onQuarantine: (record) => quarantined.push(record),
  })
  t.teardown(async () => { await runner.stop(); await log.close(); await store.close() })
  await runner.start()
  const written = await log.append(`visit-${newEventId()}`, [{ id: newEventId(), type: 'Visited', data: { page: '/pricing' } }])
  const reached = await runner.waitFor(written.position, 10_000)
  return { store, reported, quarantined, reached }
}

const stepDowns: Record<string, () => Error> = {
  'NotWritablePrimary with RetryableWriteError': () => new MongoServerError({
    code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary', errorLabels: ['RetryableWriteError'],
  }),
  'InterruptedDueToReplStateChange with TransientTransactionError': () => new MongoServerError({
    code: 11602, codeName: 'InterruptedDueToReplStateChange', errmsg: 'operation was interrupted', errorLabels: ['TransientTransactionError'],
  }),
  'PrimarySteppedDown without a label': () => new MongoServerError({ code: 189, codeName: 'PrimarySteppedDown', errmsg: 'primary stepped down' }),
  'a write concern that timed out': () => new MongoWriteConcernError({
    writeConcernError: { code: 64, errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } }, ok: 1,
  }),
}

for (const [name, stepDown] of Object.entries(stepDowns)) {
  t.test(`a healthy event survives a step-down (${name}): it is projected once the store takes writes, and nothing is quarantined`, async (t) => {
    const { store, reported, quarantined, reached } = await project(t, stepDown)
    t.equal(reached, true, 'the event was projected')
    t.same(await store.get('visits_v1_b1', '/pricing'), { id: '/pricing', page: '/pricing' })
    t.same(quarantined, [], 'nothing was skipped')
    t.same(await quarantinedEvents(store, ['visits@v1#1']), [], 'nothing is recorded as quarantined')
    t.equal(reported.length, 3, 'each failed commit was reported')
    t.ok(reported.every((report) => (report as { fatal: boolean }).fatal === false), 'as something to retry')
  })
}

t.test('a document MongoDB refuses as too large is still quarantined after the retries', async (t) => {
  const tooLarge = () => new MongoServerError({ code: 10334, codeName: 'BSONObjectTooLarge', errmsg: 'object to insert too large' })
  const { store, quarantined, reached } = await project(t, tooLarge)
  t.equal(reached, true, 'the projection moved past it')
  t.equal(quarantined.length, 1)
  t.match(await quarantinedEvents(store, ['visits@v1#1']), [{ event_type: 'Visited', error: 'MongoServerError: object to insert too large' }])
  t.equal(await store.get('visits_v1_b1', '/pricing'), null)
})
