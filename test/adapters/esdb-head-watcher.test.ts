import t from 'tap'
import { HeadWatcher, type IdleWait } from '../../src/eventlog/esdb-head-watcher.js'
import type { ScanRecord, ScanWindow } from '../../src/eventlog/esdb-quiet-head.js'
import { comparePositions, type Position } from '../../src/eventlog/port.js'
import { ManualTimers } from '../support/manual-timers.js'

// The head watcher shared by an EventStoreDB log's idle subscriptions, driven by a fake `$all`
// and timers the test advances: the reads an idle deployment makes, without a server.

const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) })

const fakeLog = () => {
  const records: ScanRecord[] = []
  const timers = new ManualTimers()
  const reads = { head: [] as number[], scans: 0 }
  const append = (type: string, streamId = 'things-1') => {
    records.push({ position: at(records.length + 1), type, streamId })
    return at(records.length)
  }
  const watcher = new HeadWatcher({
    newest: async () => {
      reads.head.push(timers.now)
      return records.at(-1)?.position ?? null
    },
    scan: async (from: Position | null, head: Position, limit: number): Promise<ScanWindow> => {
      reads.scans++
      const after = records.filter((record) => from === null || comparePositions(record.position, from) >= 0).slice(0, limit + 1)
      const past = after.findIndex((record) => comparePositions(record.position, head) > 0)
      return past >= 0 ? { records: after.slice(0, past + 1), complete: true } : { records: after, complete: after.length < limit + 1 }
    },
  }, { timers, now: () => timers.now })
  return { watcher, timers, reads, append }
}

const question = (last: Position | null, types: string[] | null = null, afterActivity = true) => ({
  last, limit: 64, afterActivity, matches: (record: ScanRecord) => types === null || types.includes(record.type),
})

const settled = async (wait: IdleWait): Promise<Position | 'pending'> =>
  Promise.race([wait.checkpoint, new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))])

const idleMinute = async (subscriptions: number): Promise<number[]> => {
  const { watcher, timers, reads, append } = fakeLog()
  const head = append('ThingHappened')
  for (let i = 0; i < subscriptions; i++) watcher.wait(question(head))
  await timers.advance(60_000)
  return reads.head
}

t.test('given N subscriptions idle at the head, then the log is read as often as for one', async (t) => {
  const one = await idleMinute(1)
  const fifteen = await idleMinute(15)
  t.equal(fifteen.length, one.length, `15 subscriptions: ${fifteen.length} head reads in an idle minute, as for one`)
  t.ok(one.length <= 60_000 / 400 + 4, `about one read per 400 ms (${one.length})`)
})

t.test('given subscriptions going idle one after another, then the reads stay those of one watcher', async (t) => {
  const { watcher, timers, reads, append } = fakeLog()
  const head = append('ThingHappened')
  for (let i = 0; i < 15; i++) {
    watcher.wait(question(head))
    await timers.advance(37)
  }
  await timers.advance(60_000 - 15 * 37)
  t.ok(reads.head.length <= 60_000 / 400 + 15, `${reads.head.length} head reads in a minute for 15 subscriptions`)
})

t.test('while nothing changes, the reads back off from 50 ms to the 400 ms ceiling', async (t) => {
  const { watcher, timers, reads, append } = fakeLog()
  const head = append('ThingHappened')
  watcher.wait(question(head))
  await timers.advance(3_000)
  const gaps = reads.head.map((time, i) => time - (reads.head[i - 1] ?? 0))
  t.same(gaps.slice(0, 6), [50, 100, 200, 400, 400, 400])
  t.ok(gaps.slice(3).every((gap) => gap === 400), 'and stay at the ceiling')
})

t.test('given no subscription waiting, then nothing is read', async (t) => {
  const { watcher, timers, reads, append } = fakeLog()
  const head = append('ThingHappened')
  const wait = watcher.wait(question(head))
  await timers.advance(1_000)
  const before = reads.head.length
  wait.cancel()
  await timers.advance(60_000)
  t.equal(reads.head.length, before, 'the last wait ended, and so did the reads')
})

t.test('given skipped records past every waiter, then one scan gives each its checkpoint at the head', async (t) => {
  const { watcher, timers, reads, append } = fakeLog()
  const last = append('Wanted')
  const waits = Array.from({ length: 15 }, () => watcher.wait(question(last, ['Wanted'])))
  await timers.advance(1_000)
  append('Unwanted', 'other-1')
  const head = append('$metadata', '$$other-1')
  await timers.advance(1_000)
  const answers = await Promise.all(waits.map(settled))
  t.ok(answers.every((answer) => answer !== 'pending' && comparePositions(answer, head) === 0), 'each gets the head')
  t.equal(reads.scans, 1, 'one quiet scan for the fifteen')
})

t.test('given a record a waiter accepts before the head, then that waiter gets no checkpoint and the others do', async (t) => {
  const { watcher, timers, reads, append } = fakeLog()
  const last = append('Wanted')
  const wanting = watcher.wait(question(last, ['Wanted']))
  const skipping = watcher.wait(question(last, ['Other']))
  append('Wanted')
  const head = append('Unwanted')
  await timers.advance(2_000)
  t.same(await settled(skipping), head, 'the head is quiet for a filter that skips both')
  t.equal(await settled(wanting), 'pending', 'not for one whose event is still on its way')
  t.equal(reads.scans, 1, 'and the same head is not scanned again')
})

t.test('given waiters far apart, then the one the shared window falls short of is scanned from its own position', async (t) => {
  const { watcher, timers, append } = fakeLog()
  const far = append('Wanted')
  for (let i = 0; i < 100; i++) append('Unwanted')
  const near = append('Wanted')
  append('Unwanted')
  const head = append('Unwanted')
  const behind = watcher.wait(question(far, ['Wanted']))
  const close = watcher.wait(question(near, ['Wanted']))
  await timers.advance(2_000)
  t.equal(await settled(behind), 'pending', 'more than 64 records behind: no checkpoint yet')
  t.same(await settled(close), head, 'the near one is quiet at the head')
})

t.test('given an append through this process, then a waiting subscription is answered soon', async (t) => {
  const { watcher, timers, append } = fakeLog()
  const last = append('Wanted')
  const wait = watcher.wait(question(last, ['Wanted']))
  await timers.advance(10_000)
  const head = append('Unwanted')
  watcher.nudge()
  await timers.advance(160)
  t.same(await settled(wait), head, 'within two 50 ms rounds and a scan, not two 400 ms ones')
})

t.test('given a failing read, then every waiter is told', async (t) => {
  const timers = new ManualTimers()
  const watcher = new HeadWatcher({
    newest: async () => { throw new Error('no server') },
    scan: async () => ({ records: [], complete: true }),
  }, { timers, now: () => timers.now })
  const waits = [watcher.wait(question(null)), watcher.wait(question(null))]
  await timers.advance(100)
  for (const wait of waits) await t.rejects(wait.checkpoint, /no server/)
})
