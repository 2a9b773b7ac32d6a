import { positionFromString, type EventLog, type Position } from './port.js'

/** A moment in the log: a position, or a time that stands for the last event recorded at or before it. */
export type Cutoff = { readonly kind: 'position'; readonly position: Position } | { readonly kind: 'time'; readonly at: Date }

const ISO = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/

/** `123` or `123/123` is a log position; an ISO 8601 date or time is a time. Null when it is neither. */
export const parseCutoff = (text: string): Cutoff | null => {
  if (/^\d+$/.test(text)) return { kind: 'position', position: { commit: BigInt(text), prepare: BigInt(text) } }
  if (/^\d+\/\d+$/.test(text)) return { kind: 'position', position: positionFromString(text) }
  if (!ISO.test(text)) return null
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? null : { kind: 'time', at: new Date(ms) }
}

/** Whether an event recorded at `created`, at `position`, lies at or before the cutoff. */
export const within = (cutoff: Cutoff, event: { created: Date; position: Position }): boolean =>
  cutoff.kind === 'time'
    ? event.created.getTime() <= cutoff.at.getTime()
    : event.position.commit < cutoff.position.commit
      || (event.position.commit === cutoff.position.commit && event.position.prepare <= cutoff.position.prepare)

/** Before every event: a rebuild up to here is empty. */
export const BEFORE_START: Position = { commit: -1n, prepare: -1n }

/**
 * The position of the last event at or before the cutoff (a time is found by reading the log
 * forwards, as record times follow log order), never past the head.
 */
export const resolveCutoff = async (log: EventLog, cutoff: Cutoff): Promise<Position> => {
  const head = await log.headPosition()
  if (head === null) return BEFORE_START
  if (cutoff.kind === 'position') return within(cutoff, { created: new Date(0), position: head }) ? head : cutoff.position
  let last = BEFORE_START
  for await (const event of log.readAll()) {
    if (!within(cutoff, event)) break
    last = event.position
  }
  return last
}
