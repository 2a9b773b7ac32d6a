import t from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { comparePositions, type Position } from '../../src/eventlog/port.js'
import { newEventId } from '../../src/kernel/ids.js'
import type { DocumentChange } from '../../src/readstore/port.js'
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('while another connection holds the read store\'s file locked, a projection waits without quarantining, and catches up once it is released', async (t) => {
  const path = join(tempDir(t), 'readmodels.sqlite')
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path, busyTimeoutMs: 20 })
  const reported: { code: unknown; fatal: boolean }[] = []
  const quarantined: DocumentChange[] = []
  // Quarantine at the first refusal, so that a lock taken for a refusal would show at once.
  const runner = new ProjectionRunner({
    log, store, projector: visits, build: { version: 1, build: 1 }, attemptsBeforeQuarantine: 1,
    onError: (error, fatal) => reported.push({ code: (error as { code?: unknown }).code, fatal }), onQuarantine: (record) => quarantined.push(record),
  })
  t.teardown(async () => { await runner.stop(); await log.close(); await store.close() })
  await runner.start()
  const visit = (page: string) => log.append(`visit-${newEventId()}`, [{ id: newEventId(), type: 'Visited', data: { page } }])
  t.equal(await runner.waitFor((await visit('/')).position, 5000), true)

  const locker = new Database(path)
  t.teardown(() => { if (locker.open) locker.close() })
  locker.exec('BEGIN EXCLUSIVE')
  let last: Position | null = null
  for (const page of ['/a', '/b', '/c']) last = (await visit(page)).position
  await sleep(1000)
  t.ok(runner.position === null || comparePositions(runner.position, last!) < 0, 'nothing was committed while the file was locked')
  t.ok(reported.length >= 2, 'the commit was tried again and again')
  t.ok(reported.every((report) => report.code === 'SQLITE_BUSY' && !report.fatal), 'each failure is a busy file, to retry')
  t.same(quarantined, [], 'nothing was skipped while locked')

  locker.exec('COMMIT')
  locker.close()
  t.equal(await runner.waitFor(last!, 10_000), true, 'caught up once the lock was released')
  t.same((await store.find('visits_v1_b1')).map((doc) => doc['id']), ['/', '/a', '/b', '/c'])
  t.same(await quarantinedEvents(store, ['visits@v1#1']), [])
})
