import t from 'tap'
import { IDLE_FIRST_MS, IDLE_MAX_MS, nextIdleDelay, quietIn, type ScanWindow } from '../../src/eventlog/esdb-quiet-head.js'

// The check an idle EventStoreDB subscription makes before it checkpoints at the head; the
// contract suite shows the outcome on a real server when HEDGELOG_TEST_EVENTSTORE_URL is set.

const at = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) })
type Row = { position: ReturnType<typeof at>; matches: boolean }
const log = (complete: boolean, ...records: [position: number, matches: boolean][]): ScanWindow<Row> =>
  ({ records: records.map(([position, matches]) => ({ position: at(position), matches })), complete })
const quiet = (window: ScanWindow<Row>, after: number | null, head: number, limit = 64) =>
  quietIn(window, after === null ? null : at(after), at(head), limit, (record) => record.matches)

t.test('given only skipped records between the last delivery and the head, then the head is quiet', async (t) => {
  t.equal(quiet(log(true, [10, true], [11, false], [12, false]), 10, 12), 'quiet', 'the delivered record itself does not count')
  t.equal(quiet(log(false, [11, false], [12, false], [13, true]), 10, 12), 'quiet', 'a match after the head does not count')
  t.equal(quiet(log(true, [1, false], [2, false]), null, 2), 'quiet', 'from the start of the log')
})

t.test('given a matching record between the last delivery and the head, then the head is not quiet', async (t) => {
  t.equal(quiet(log(true, [10, true], [11, false], [12, true]), 10, 12), 'busy', 'a match at the head')
  t.equal(quiet(log(true, [11, true], [12, false]), 10, 12), 'busy', 'a match before the head')
})

t.test('given more skipped records than the limit, then the check gives up rather than read on', async (t) => {
  const many = Array.from({ length: 100 }, (_, i): [number, boolean] => [i + 1, false])
  t.equal(quiet(log(true, ...many), null, 100, 64), 'busy')
  t.equal(quiet(log(true, ...many), null, 100, 100), 'busy', 'the limit itself is not quiet either')
  t.equal(quiet(log(true, ...many), 40, 100, 64), 'quiet', 'a shorter window is read through')
})

t.test('given a window read for a subscription further behind that stops short of the head, then the verdict waits', async (t) => {
  t.equal(quiet(log(false, [1, false], [2, false], [3, false]), 2, 10), 'unknown', 'cut short, so records may be missing')
  t.equal(quiet(log(true, [1, false], [2, false], [3, false]), 2, 10), 'quiet', 'ended at the end of the log')
  t.equal(quiet(log(false, [1, false], [2, false], [3, true]), 2, 10), 'busy', 'a match seen is enough')
})

t.test('the idle check backs off while nothing changes, and never waits long', async (t) => {
  const delays = [IDLE_FIRST_MS]
  for (let i = 0; i < 6; i++) delays.push(nextIdleDelay(delays.at(-1)!))
  t.same(delays, [50, 100, 200, 400, 400, 400, 400])
  t.ok(IDLE_MAX_MS * 2 + IDLE_FIRST_MS < 2_000, 'a head seen twice is confirmed well inside a two-second wait')
})
