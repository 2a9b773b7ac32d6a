import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { Unavailable } from '../../src/eventlog/errors.js'
import { JsonText } from '../../src/eventlog/port.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { collect } from '../support/collect.js'
import { tempDir } from '../support/temp.js'

const UTF8 = new TextEncoder()

/** An object's JSON as pieces of their own: a head, `count` items of about `itemBytes` each, a tail. */
const pieces = (count: number, itemBytes: number): Uint8Array[] => [
  UTF8.encode('{"items":['),
  ...Array.from({ length: count }, (_, i) => UTF8.encode(`${i === 0 ? '' : ','}"${String(i).padEnd(itemBytes, 'x')}"`)),
  UTF8.encode(']}'),
]

const openLog = (t: Test) => {
  const log = new SqliteEventLog({ path: join(tempDir(t), 'events.sqlite'), commitThread: true })
  t.teardown(() => log.close())
  return log
}

t.test('given movable pieces in an append large enough for the commit thread, when it is appended, then the pieces move to that thread and what is stored is their whole text', async (t) => {
  const log = openLog(t)
  const parts = pieces(3, 120 * 1024)
  const text = new JsonText(parts, true)
  const expected = JSON.parse(text.toString()) as { items: string[] }
  await log.append('movable-1', [{ id: randomUUID(), type: 'Moved', data: text }], { expectedRevision: 'no_stream' })
  const [stored] = await collect(log.readStream('movable-1'))
  t.same(stored!.data, expected, 'the stored data is the joined pieces')
  t.ok(parts.every((part) => part.byteLength === 0), 'every piece was moved, not copied (its buffer is detached here)')
  t.ok(text.spent, 'the text says it is spent')

  await t.rejects(log.append('movable-2', [{ id: randomUUID(), type: 'Moved', data: text }]), Unavailable, 'a spent text cannot be appended again')
  await t.rejects(collect(log.readStream('movable-2')), 'and nothing was written for it')
})

t.test('given pieces not marked movable, when they are appended through the commit thread, then they are copied and stay usable', async (t) => {
  const log = openLog(t)
  const parts = pieces(3, 120 * 1024)
  const text = new JsonText(parts)
  const bytes = text.bytes
  await log.append('copied', [{ id: randomUUID(), type: 'Copied', data: text }])
  t.equal(text.bytes, bytes, 'the pieces keep their bytes')
  t.notOk(text.spent)
  await log.append('copied-again', [{ id: randomUUID(), type: 'Copied', data: text }])
  const [first] = await collect(log.readStream('copied'))
  const [second] = await collect(log.readStream('copied-again'))
  t.same(second!.data, first!.data, 'the same text can be appended twice')
})

t.test('given movable pieces in a small append, when it is committed on the calling thread, then nothing is moved', async (t) => {
  const log = openLog(t)
  const parts = pieces(2, 100)
  const text = new JsonText(parts, true)
  await log.append('small', [{ id: randomUUID(), type: 'Small', data: text }])
  t.notOk(text.spent, 'a group committed in place keeps its pieces')
  t.ok(parts.every((part) => part.byteLength > 0))
  const [stored] = await collect(log.readStream('small'))
  t.same(stored!.data, JSON.parse(text.toString()))
})
