import t from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import type { EventLog, ReadStreamOptions } from '../../src/eventlog/port.js'
import { handleCommand, type Decider } from '../../src/kernel/handle-command.js'
import { newEventId } from '../../src/kernel/ids.js'

type Added = { type: 'Added'; data: { n: number } }
/** A counter whose command refuses to go past a limit, so every decision depends on the whole history. */
const counter: Decider<{ total: number; events: number }, { add: number; limit: number }, Added> = {
  initialState: () => ({ total: 0, events: 0 }),
  evolve: (state, event) => ({ total: state.total + event.data.n, events: state.events + 1 }),
  decide: (command, state) => (state.total + command.add > command.limit ? [] : [{ type: 'Added', data: { n: command.add } }]),
}

const context = { actor: 'test', now: new Date().toISOString(), correlationId: newEventId() }

/** The log, counting the events each readStream hands out. */
const counted = (log: EventLog) => {
  const reads: { from: bigint | string | undefined; events: number }[] = []
  const wrapped = Object.create(log) as EventLog
  wrapped.readStream = async function* (stream: string, options?: ReadStreamOptions) {
    const read = { from: options?.fromRevision, events: 0 }
    reads.push(read)
    for await (const event of log.readStream(stream, options)) {
      read.events++
      yield event
    }
  }
  return { log: wrapped, reads }
}

t.test('a command on a long-lived aggregate reads only the events appended since this process last folded it', async (t) => {
  const base = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => base.close())
  const { log, reads } = counted(base)
  for (let i = 0; i < 50; i++) await handleCommand(log, counter, 'counter-1', { add: 1, limit: 1000 }, context)
  t.same(reads[0], { from: undefined, events: 0 }, 'the first command reads the whole (empty) stream')
  t.ok(reads.slice(1).every((read) => read.events === 0), 'each later command finds nothing it has not folded already')
  t.equal(reads.at(-1)!.from, 49n, 'and reads from the revision after the one it folded')

  // Another writer (another process, or code that appends directly) moves the stream on.
  await base.append('counter-1', [{ id: newEventId(), type: 'Added', data: { n: 900 } }], { expectedRevision: 49n })
  const refused = await handleCommand(log, counter, 'counter-1', { add: 60, limit: 1000 }, context)
  t.same(refused.events, [], 'the decision sees the other writer\'s event: 950 + 60 would pass the limit')
  t.same(refused.state, { total: 950, events: 51 })
  t.same(reads.at(-1), { from: 50n, events: 1 }, 'only that one event was read')
  const accepted = await handleCommand(log, counter, 'counter-1', { add: 50, limit: 1000 }, context)
  t.same(accepted.state, { total: 1000, events: 52 })
  t.equal(accepted.revision, 51n)
})

t.test('concurrent commands on one aggregate in one process are serialised, and each decides on the whole history', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => log.close())
  const results = await Promise.all(Array.from({ length: 40 }, () => handleCommand(log, counter, 'counter-2', { add: 1, limit: 25 }, context)))
  t.equal(results.filter((r) => r.events.length === 1).length, 25, 'exactly as many succeed as the limit allows')
  let total = 0
  for await (const event of log.readStream('counter-2')) total += (event.data as { n: number }).n
  t.equal(total, 25, 'and the log holds exactly that')
})

t.test('two deciders folding the same stream never share a folded state', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => log.close())
  const doubled: typeof counter = { ...counter, evolve: (state, event) => ({ total: state.total + 2 * event.data.n, events: state.events + 1 }) }
  await handleCommand(log, counter, 'counter-3', { add: 5, limit: 100 }, context)
  const other = await handleCommand(log, doubled, 'counter-3', { add: 1, limit: 100 }, context)
  t.same(other.state, { total: 12, events: 2 }, 'the second decider folded the stream itself')
})
