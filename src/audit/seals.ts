import { setImmediate as turn } from 'node:timers/promises'
import { positionToString, type EventLog, type Position, type RecordedEvent } from '../eventlog/port.js'
import { newEventId } from '../kernel/ids.js'
import { SCHEMA_VERSION } from '../kernel/handle-command.js'
import {
  CHAIN_START, EVENTS_PER_SEAL, FINGERPRINT_BYTES, LOG_SEALED, SEAL_STREAM, eventHash, extendChain, fingerprintOf,
  type LogSealedData,
} from './seal-chain.js'

export interface EventRef {
  readonly stream: string
  readonly revision: string
  readonly id: string
  readonly type: string
  readonly position: string
}

/** Why a seal no longer matches the log. */
export interface SealMismatch {
  /** The seal that fails: its position in the log. */
  readonly seal: string
  /** The first event whose hash differs from the one the seal recorded; null when none can be named. */
  readonly event: EventRef | null
  readonly reason: string
}

interface Entry {
  readonly ref: EventRef
  readonly fingerprint: Buffer
  readonly chain: string
}

const refOf = (event: RecordedEvent): EventRef => ({
  stream: event.streamId, revision: event.revision.toString(), id: event.id, type: event.type, position: positionToString(event.position),
})

/**
 * Recomputes the chain over the log in order and checks each seal as it comes by. It keeps the
 * events not yet covered by a seal, so a new seal can be written for them.
 */
export class SealWalker {
  events = 0
  seals = 0
  chain = CHAIN_START
  /** Events covered by the seals seen so far. */
  sealedCount = 0
  private uncovered: Entry[] = []

  /** Feeds the next event of the log; returns why a seal fails, if this event is a failing seal. */
  feed(event: RecordedEvent): SealMismatch | null {
    if (event.type === LOG_SEALED && event.streamId === SEAL_STREAM) {
      const mismatch = this.check(event)
      if (mismatch) return mismatch
    }
    const hash = eventHash(event)
    this.chain = extendChain(this.chain, hash)
    this.uncovered.push({ ref: refOf(event), fingerprint: fingerprintOf(hash), chain: this.chain })
    this.events++
    return null
  }

  private check(seal: RecordedEvent): SealMismatch | null {
    const data = seal.data as LogSealedData
    const at = positionToString(seal.position)
    this.seals++
    const recorded = Buffer.from(String(data.fingerprints ?? ''), 'base64')
    const covered = Number(data.eventCount) - this.sealedCount
    if (data.fromCount !== this.sealedCount || !(covered >= 0) || recorded.length !== covered * FINGERPRINT_BYTES) {
      return { seal: at, event: null, reason: 'the seal does not follow on from the seal before it' }
    }
    const n = Math.min(covered, this.uncovered.length)
    for (let i = 0; i < n; i++) {
      if (!recorded.subarray(i * FINGERPRINT_BYTES, (i + 1) * FINGERPRINT_BYTES).equals(this.uncovered[i]!.fingerprint)) {
        return { seal: at, event: this.uncovered[i]!.ref, reason: 'the event no longer matches the hash the seal recorded' }
      }
    }
    if (n < covered) return { seal: at, event: null, reason: `the seal covers ${covered} events here, the log now has ${n} (events removed)` }
    const chain = covered === 0 ? null : this.uncovered[covered - 1]!.chain
    if (chain !== null && data.chainSha256 !== chain) return { seal: at, event: null, reason: 'the chain hash differs although every fingerprint matches' }
    this.uncovered = this.uncovered.slice(covered)
    this.sealedCount += covered
    return null
  }

  get unsealed(): number {
    return this.uncovered.length
  }

  /** Seals for the events not covered yet, each covering at most EVENTS_PER_SEAL of them. */
  nextSeals(): LogSealedData[] {
    const seals: LogSealedData[] = []
    for (let start = 0; start < this.uncovered.length; start += EVENTS_PER_SEAL) {
      const part = this.uncovered.slice(start, start + EVENTS_PER_SEAL)
      const last = part.at(-1)!
      seals.push({
        eventCount: this.sealedCount + start + part.length, through: last.ref.position, chainSha256: last.chain,
        fromCount: this.sealedCount + start, fingerprints: Buffer.concat(part.map((e) => e.fingerprint)).toString('base64'),
        algorithm: 'sha256-chain-v1',
      })
    }
    return seals
  }
}

export interface SealReport {
  readonly events: number
  readonly seals: number
  readonly unsealed: number
  readonly chainSha256: string
  readonly mismatch: SealMismatch | null
}

export interface SealWalkOptions {
  readonly onEvent?: (position: Position) => void
  /** Asked between events; true ends the walk with SealWalkStopped. */
  readonly shouldStop?: () => boolean
}

export class SealWalkStopped extends Error {
  constructor() {
    super('the seal walk stopped before the end of the log')
  }
}

/** Events read between two turns of the event loop, so a signal is heard during a long walk. */
const EVENTS_PER_TURN = 1000

/** Walks the whole log and checks every seal; stops at the first that fails. */
export const verifySeals = async (log: EventLog, options: SealWalkOptions = {}): Promise<SealReport & { walker: SealWalker }> => {
  const walker = new SealWalker()
  let sinceTurn = 0
  for await (const event of log.readAll()) {
    if (++sinceTurn >= EVENTS_PER_TURN) {
      sinceTurn = 0
      await turn()
    }
    if (options.shouldStop?.()) throw new SealWalkStopped()
    const mismatch = walker.feed(event)
    if (mismatch) return { events: walker.events, seals: walker.seals, unsealed: walker.unsealed, chainSha256: walker.chain, mismatch, walker }
    options.onEvent?.(event.position)
  }
  return { events: walker.events, seals: walker.seals, unsealed: walker.unsealed, chainSha256: walker.chain, mismatch: null, walker }
}

export class SealBroken extends Error {
  constructor(readonly mismatch: SealMismatch) {
    super(`the seal at ${mismatch.seal} no longer matches the log: ${mismatch.reason}`)
  }
}

/**
 * Seals the log: checks every earlier seal, then appends LogSealed events covering every event
 * not yet covered. Refuses, writing nothing, when an earlier seal fails; stopped during the walk,
 * it writes nothing either.
 */
export const sealLog = async (log: EventLog, actor: string, options: SealWalkOptions = {}): Promise<LogSealedData[]> => {
  const report = await verifySeals(log, options)
  if (report.mismatch) throw new SealBroken(report.mismatch)
  const seals = report.walker.nextSeals()
  const correlationId = newEventId()
  for (const data of seals) {
    await log.append(SEAL_STREAM, [{
      id: newEventId(), type: LOG_SEALED, data,
      metadata: { correlationId, causationId: correlationId, actor, occurredAt: new Date().toISOString(), schemaVersion: SCHEMA_VERSION },
    }])
  }
  return seals
}
