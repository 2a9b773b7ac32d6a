import type { CommandContext } from './handle-command.js'
import { newEventId } from './ids.js'
import { DomainError, ResultNotReadable } from './errors.js'

/**
 * Runs the second step of a command whose first step is in the log. The command stands either
 * way (the scheduler finishes it), so a failure here is answered 503 with `Retry-After`, never
 * as if nothing had been written.
 */
export const completing = async <T>(step: () => Promise<T>): Promise<T> => {
  try {
    return await step()
  } catch (error) {
    if (error instanceof DomainError) throw error
    throw new ResultNotReadable()
  }
}

/**
 * The context of a command's second step, named from its first: every run of it, by the request
 * or after a restart, has the same command id, so it writes the same event ids.
 */
export const completionContext = (actor: string, now: string, commandId: string): CommandContext =>
  ({ actor, now, correlationId: newEventId(), commandId })
