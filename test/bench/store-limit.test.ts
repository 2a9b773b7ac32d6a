import t from 'tap'
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { appendCaptured } from '../../src/ingestion/append.js'
import type { CapturedEvent } from '../../src/ingestion/captured-event.js'
import { newEventId } from '../../src/kernel/ids.js'
import { projectShare } from '../../bench/store-limit-work.js'

const PEOPLE = 50
const EVENTS = 600

/** Event `i`: person `i % 50`, a session per person and round of 200 events, two group types. */
const captured = (i: number): CapturedEvent => {
  const person = i % PEOPLE
  const round = Math.floor(i / 200)
  return {
    uuid: newEventId(), event: i % 3 === 0 ? 'signed_up' : '$pageview', distinct_id: `anon-${person}`, timestamp: new Date(i * 1000).toISOString(),
    properties: { $session_id: `s-${person}-${round}`, $current_url: `https://example.com/${i}`, $groups: { company: `c-${person % 7}`, team: `t-${person % 3}` }, $set: { last: i } },
    set: null, set_once: null, ip: null, now: new Date(0).toISOString(), sent_at: null,
  }
}

t.test('the store probe writes every document the four read models would hold, one log row per transaction', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'store-limit-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  for (let from = 0; from < EVENTS; from += 100) {
    await appendCaptured(log, { environmentId: 1, requestId: `r${from}`, events: Array.from({ length: 100 }, (_, j) => captured(from + j)), metadata: { actor: 'test' } })
  }
  await log.close()

  const store = join(dir, 'store.sqlite')
  t.equal(projectShare('people', join(dir, 'events.sqlite'), store), EVENTS)
  t.equal(projectShare('activity', join(dir, 'events.sqlite'), store), EVENTS)

  const db = new Database(store, { readonly: true })
  t.teardown(() => db.close())
  const count = (table: string) => db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get()
  t.equal(count('activity_events'), EVENTS, 'one event document per captured event')
  t.equal(count('activity_sessions'), PEOPLE * 3, 'one session per person and round')
  t.equal(count('people_distinct_ids'), PEOPLE)
  t.equal(count('people_persons'), PEOPLE)
  t.equal(count('people_groups'), 7 + 3)
  const person = JSON.parse(db.prepare(`SELECT p.body FROM people_persons p JOIN people_distinct_ids d
    ON p.id = '1:' || json_extract(d.body, '$.person_id') WHERE d.id = '1:anon-7'`).pluck().get() as string) as { properties: { last: number }; version: number }
  t.equal(person.properties.last, EVENTS - PEOPLE + 7, 'the last $set of the person wins')
  t.equal(person.version, EVENTS / PEOPLE - 1, 'the person was rewritten for each of its events')
  const session = JSON.parse(db.prepare("SELECT body FROM activity_sessions WHERE id = '1:s-7-1'").pluck().get() as string) as { event_count: number }
  t.equal(session.event_count, 4, 'a session counts its events')
  const logDb = new Database(join(dir, 'events.sqlite'), { readonly: true })
  const last = logDb.prepare("SELECT max(global_position) FROM events WHERE event_type = 'EventsCaptured'").pluck().get()
  logDb.close()
  t.same(db.prepare('SELECT name, position FROM checkpoints ORDER BY name').all(), [
    { name: 'activity', position: last }, { name: 'people', position: last },
  ], 'each share moved its checkpoint to the last log row')
})
