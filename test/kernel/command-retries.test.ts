import t from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import type { AppendOptions, EventData, EventLog } from '../../src/eventlog/port.js'
import { handleCommand, type CommandContext, type Decider } from '../../src/kernel/handle-command.js'
import { newEventId } from '../../src/kernel/ids.js'
import { collect } from '../support/collect.js'

type Added = { type: 'Added'; data: { n: number } }
/** Adds whatever it is told: deciding the same command twice would add twice. */
const adder: Decider<number, { add: number }, Added> = {
  initialState: () => 0,
  evolve: (state, event) => state + event.data.n,
  decide: (command) => [{ type: 'Added', data: { n: command.add } }],
}

const contextOf = (commandId?: string): CommandContext => ({
  actor: 'test', now: new Date().toISOString(), correlationId: newEventId(), ...(commandId ? { commandId } : {}),
})

/** A real log whose next `failures` appends are written and then reported as failed, as a timeout after the write would be. */
const losingAnswers = (log: EventLog, failures: number) => {
  const wrapped = Object.create(log) as EventLog
  let left = failures
  wrapped.append = async (stream: string, events: readonly EventData[], options?: AppendOptions) => {
    const result = await log.append(stream, events, options)
    if (left-- > 0) throw new Error('deadline exceeded')
    return result
  }
  return wrapped
}

const total = async (log: EventLog, stream: string) => {
  const events = await collect(log.readStream(stream)).catch((error: Error) => (error.name === 'StreamNotFound' ? [] : Promise.reject(error)))
  return events.reduce((sum, event) => sum + Number(event.data['n']), 0)
}

t.test('an append written but answered with an error is found on the retry, not written again', async (t) => {
  const base = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => base.close())
  const log = losingAnswers(base, 1)
  const result = await handleCommand(log, adder, 'adder-1', { add: 5 }, contextOf())
  t.equal(result.replayed, true, 'the retry found the command in the stream')
  t.not(result.position, null, 'with the position to wait for')
  t.equal(await total(base, 'adder-1'), 5, 'added once')
})

t.test('a command named by the client runs once however often it is sent', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => log.close())
  const first = await handleCommand(log, adder, 'adder-2', { add: 3 }, contextOf('client-key'))
  const again = await handleCommand(log, adder, 'adder-2', { add: 3 }, contextOf('client-key'))
  const concurrent = await Promise.all([1, 2, 3].map(() => handleCommand(log, adder, 'adder-2', { add: 3 }, contextOf('client-key'))))
  t.equal(first.replayed, undefined)
  t.ok(again.replayed && concurrent.every((result) => result.replayed))
  t.same(again.position, first.position, 'every retry points at the first write')
  t.equal(await total(log, 'adder-2'), 3)
  await handleCommand(log, adder, 'adder-2', { add: 1 }, contextOf('another-key'))
  t.equal(await total(log, 'adder-2'), 4, 'another name is another command')
})

t.test('one context running the same command twice on a stream runs it twice', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => log.close())
  const context = contextOf()
  await handleCommand(log, adder, 'adder-3', { add: 1 }, context)
  await handleCommand(log, adder, 'adder-3', { add: 1 }, context)
  t.equal(await total(log, 'adder-3'), 2)
})

t.test('an append that keeps failing without an answer is reported after a few tries', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => log.close())
  const failing = Object.create(log) as EventLog
  failing.append = async () => { throw new Error('unavailable') }
  await t.rejects(handleCommand(failing, adder, 'adder-4', { add: 1 }, contextOf()), /unavailable/)
  t.equal(await total(log, 'adder-4'), 0)
})

type Noted = { type: 'Noted'; data: { text: string; round: number } }
/** Writes three large notes, each naming how many notes were there when it was decided. */
const notes: Decider<number, { size: number }, Noted> = {
  initialState: () => 0,
  evolve: (state) => state + 1,
  decide: (command, state) => [1, 2, 3].map(() => ({ type: 'Noted', data: { text: 'n'.repeat(command.size), round: state } })),
}

t.test('a change in parts that loses the race for its aggregate is decided again, and only the winning try counts', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => log.close())
  const racing = Object.create(log) as EventLog
  let raced = false
  racing.append = async (stream: string, events: readonly EventData[], options?: AppendOptions) => {
    if (!raced && events[0]?.type === 'ChangeCommitted') {
      raced = true
      await log.append(stream, [{ id: newEventId(), type: 'Noted', data: { text: 'first', round: -1 } }], { expectedRevision: 'any' })
    }
    return log.append(stream, events, options)
  }
  await handleCommand(log, notes, 'notes-1', { size: 10 }, contextOf())
  const result = await handleCommand(racing, notes, 'notes-1', { size: 300_000 }, contextOf())
  t.ok(raced, 'the commit met a concurrent write')
  t.equal(result.state, 7, 'three, the racer, and three more')
  const { readAggregate } = await import('../../src/kernel/handle-command.js')
  const { events } = await readAggregate<Noted>(log, 'notes-1')
  t.same(events.map((event) => event.data.round), [0, 0, 0, -1, 4, 4, 4], 'the parts read back are the second try\'s, decided on the state the racer left')
})
