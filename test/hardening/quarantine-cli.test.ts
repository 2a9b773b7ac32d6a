import t from 'tap'
import { join } from 'node:path'
import type { EventsCapturedData } from '../../src/ingestion/captured-event.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { newEventId } from '../../src/kernel/ids.js'
import { ownFilesOf } from '../../src/readstore/sqlite-shards.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { allProjectors } from '../../src/modules.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { runCli } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

const captured = (environmentId: number, names: string[]) => {
  const now = new Date().toISOString()
  const events = names.map((event, i) => ({
    uuid: `0190a6f0-0000-7000-8000-00000000000${i}`, event, distinct_id: 'a', timestamp: now, properties: {}, set: null, set_once: null, ip: null, now, sent_at: null,
  }))
  return { id: newEventId(), type: 'EventsCaptured', data: { environmentId, events }, metadata: { actor: 'phc_test', occurredAt: now } }
}

const until = async (check: () => Promise<boolean>, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return check()
}

t.test('hedgelog quarantine list and retry, run as a command against the data directory a running projector uses', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, LOG_LEVEL: 'silent' }
  const chosen = { broken: true }
  const events = allProjectors.find((p) => p.name === 'events')!
  const picky: Projector = {
    ...events,
    apply(view, event) {
      if (chosen.broken && (event.data as EventsCapturedData).events.some((e) => e.event === 'chosen')) throw new RangeError('the events projector cannot take this one')
      events.apply(view, event)
    },
  }
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  const store = new SqliteReadStore({ path: join(dir, 'readmodels.sqlite'), ownFiles: ownFilesOf(allProjectors) })
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: [picky] })
  t.teardown(async () => {
    await projections.stop()
    await log.close()
    await store.close()
  })
  await projections.start()
  const streamId = `ingest-7-${newEventId()}`
  await log.append(streamId, [captured(7, ['first', 'chosen', 'third'])])
  await log.append(`ingest-7-${newEventId()}`, [captured(7, ['later'])])
  t.ok(await until(async () => (await projections.quarantined()).length === 1, 10_000), 'the running projector quarantined the event')
  const [record] = await projections.quarantined()

  const plain = await runCli(['quarantine', 'list'], env)
  t.equal(plain.code, 0, plain.stderr)
  t.equal(plain.stdout, `events\t${record!.position}#1\tEventsCaptured\t${streamId}@0\tRangeError: the events projector cannot take this one\n`)

  const json = await runCli(['quarantine', 'list', '--json'], env)
  t.equal(json.code, 0, json.stderr)
  t.match(JSON.parse(json.stdout), [{
    projection: 'events', position: record!.position, part: 1, event_type: 'EventsCaptured', stream_id: streamId, revision: '0',
    checkpoint: `events@v${events.version}#1`, error: 'RangeError: the events projector cannot take this one',
  }])
  t.equal(JSON.parse(json.stdout).length, 1)

  const unknown = await runCli(['quarantine', 'retry', '--projection', 'nope'], env)
  t.equal(unknown.code, 1)
  t.equal(unknown.stderr, 'hedgelog: unknown projection: nope\n')

  chosen.broken = false
  const retry = await runCli(['quarantine', 'retry'], env)
  t.equal(retry.code, 0, retry.stderr)
  t.equal(retry.stdout, 'rebuilding events: the running projector switches to each new build once it has caught up\n')
  t.ok(await until(async () => (await registry.read('events'))?.active.build === 2, 15_000), 'the running projector adopted the rebuild and switched to it')

  const after = await runCli(['quarantine', 'list'], env)
  t.equal(after.stdout, 'nothing is quarantined\n')
  t.same(JSON.parse((await runCli(['quarantine', 'list', '--json'], env)).stdout), [])
  t.equal((await runCli(['quarantine', 'retry'], env)).stdout, 'nothing to retry\n')
  t.same(await projections.quarantined(), [])
})
