import type { Test } from 'tap'
import type { Decider, DomainEvent } from '../../src/kernel/handle-command.js'

/** given(events…).when(command).then(t, expectedEvents) — a decider specification. */
export const spec = <S, C, E extends DomainEvent>(decider: Decider<S, C, E>) => (...history: E[]) => ({
  when: (command: C) => {
    const run = () => decider.decide(command, history.reduce(decider.evolve, decider.initialState()))
    return {
      then: (t: Test, expected: E[], message = 'should be equivalent') => t.same(run(), expected, message),
      thenThrows: (t: Test, error: new (...args: never[]) => Error) => t.throws(run, error),
    }
  },
})
