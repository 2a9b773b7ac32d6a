import { randomBytes } from 'node:crypto'
import type { EventLog } from '../eventlog/port.js'
import { assertNever } from '../kernel/errors.js'
import { handleCommand, readAggregate, type CommandContext, type Decider } from '../kernel/handle-command.js'

/** The installation's key for signing links to exports, issued once, the first time a link is made. */
export type ExportLinkKeyIssued = { type: 'ExportLinkKeyIssued'; data: { key: string; at: string } }

export const EXPORT_LINK_KEY_STREAM = 'exportlinks-key'

type KeyCommand = { type: 'IssueExportLinkKey'; key: string; at: string }

const keyDecider: Decider<string | null, KeyCommand, ExportLinkKeyIssued> = {
  initialState: () => null,
  evolve: (state, event) => (event.type === 'ExportLinkKeyIssued' ? state ?? event.data.key : assertNever(event.type)),
  decide: (command, state) => (state !== null ? [] : [{ type: 'ExportLinkKeyIssued', data: { key: command.key, at: command.at } }]),
}

/** Keys read per log: a key never changes once issued. */
const known = new WeakMap<EventLog, string>()

/**
 * The key that signs links to exports, issued the first time one is needed. It is read from its
 * stream, not a read model, so a key just issued by another process is the one used, and two
 * processes issuing at once end with the one that landed first.
 */
export const exportLinkSecret = async (log: EventLog, context: CommandContext): Promise<string> => {
  const kept = known.get(log)
  if (kept !== undefined) return kept
  const { state } = await handleCommand(log, keyDecider, EXPORT_LINK_KEY_STREAM, {
    type: 'IssueExportLinkKey', key: randomBytes(32).toString('base64url'), at: context.now,
  }, context)
  if (state === null) throw new Error('no export link key was issued')
  known.set(log, state)
  return state
}

/** The key, when one has been issued; a link made before there was one cannot exist. */
export const issuedExportLinkSecret = async (log: EventLog): Promise<string | null> => {
  const kept = known.get(log)
  if (kept !== undefined) return kept
  const { events } = await readAggregate<ExportLinkKeyIssued>(log, EXPORT_LINK_KEY_STREAM)
  const key = events.reduce(keyDecider.evolve, null)
  if (key !== null) known.set(log, key)
  return key
}
