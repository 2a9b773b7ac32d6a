import type { CommandContext } from '../kernel/handle-command.js'
import { newEventId } from '../kernel/ids.js'

/** A mistake in how a command was called; printed as one line, with no stack. */
export class UsageError extends Error {}

export const cliContext = (): CommandContext => ({ actor: 'cli', now: new Date().toISOString(), correlationId: newEventId() })

export const print = (json: boolean, value: Record<string, unknown>, text: string): void => {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`)
}

export const lines = (value: Record<string, unknown>): string => Object.entries(value).map(([k, v]) => `${k}: ${String(v)}`).join('\n')
