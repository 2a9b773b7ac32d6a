import t from 'tap'
import { IDLE_FIRST_MS, IDLE_MAX_MS, nextIdleDelay, quietUpTo, type QuietRecord } from '../../src/eventlog/esdb-quiet-head.js'

// The check an idle EventStoreDB subscription makes before it checkpoints at the head; the
// contract suite shows the outcome on a real server when HEDGELOG_TEST_EVENTSTORE_URL is set.

const at = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) })
const log = (...records: [position: number, matches: boolean][]): AsyncIterable<QuietRecord> => ({
  async *[Symbol.asyncIterator]() {
    for (const [position, matches] of records) yield { position: at(position), matches }
  },
})

t.test('given only skipped records between the last delivery and the head, then the head is quiet', async (t) => {
  t.equal(await quietUpTo(log([10, true], [11, false], [12, false]), at(10), at(12), 64), true, 'the delivered record itself does not count')
  t.equal(await quietUpTo(log([11, false], [12, false], [13, true]), at(10), at(12), 64), true, 'a match after the head does not count')
  t.equal(await quietUpTo(log([1, false], [2, false]), null, at(2), 64), true, 'from the start of the log')
})

t.test('given a matching record between the last delivery and the head, then the head is not quiet', async (t) => {
  t.equal(await quietUpTo(log([10, true], [11, false], [12, true]), at(10), at(12), 64), false, 'a match at the head')
  t.equal(await quietUpTo(log([11, true], [12, false]), at(10), at(12), 64), false, 'a match before the head')
})

t.test('given more skipped records than the limit, then the check gives up rather than read on', async (t) => {
  const many = Array.from({ length: 100 }, (_, i): [number, boolean] => [i + 1, false])
  t.equal(await quietUpTo(log(...many), null, at(100), 64), false)
  t.equal(await quietUpTo(log(...many), null, at(100), 100), false, 'the limit itself is not quiet either')
  t.equal(await quietUpTo(log(...many), at(40), at(100), 64), true, 'a shorter window is read through')
})

t.test('the idle check backs off while nothing changes, and never waits long', async (t) => {
  const delays = [IDLE_FIRST_MS]
  for (let i = 0; i < 6; i++) delays.push(nextIdleDelay(delays.at(-1)!))
  t.same(delays, [50, 100, 200, 400, 400, 400, 400])
  t.ok(IDLE_MAX_MS * 2 + IDLE_FIRST_MS < 2_000, 'a head seen twice is confirmed well inside a two-second wait')
})
