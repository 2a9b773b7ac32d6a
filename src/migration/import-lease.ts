import { hostname } from 'node:os'
import { StreamNotFound, WrongExpectedVersion } from '../eventlog/errors.js'
import type { EventLog, JsonObject } from '../eventlog/port.js'
import { newEventId, newUlid } from '../kernel/ids.js'
import { processAlive } from '../kernel/process-alive.js'

/**
 * `hedgelog import` takes a lease on what it imports before writing any of it, so that a second
 * run of the same file at the same time waits for the first instead of writing every chunk again.
 * The lease is a stream of the log, `importlease-<environmentId>-<key>` (the key of the file's
 * first chunk): taking or renewing it is an append at the exact revision last read, so two runs
 * never both hold it.
 */
export const IMPORT_LEASE_TAKEN = 'ImportLeaseTaken'
export const IMPORT_LEASE_RELEASED = 'ImportLeaseReleased'

export const importLeaseStream = (environmentId: number, key: string): string => `importlease-${environmentId}-${key}`

export interface LeaseHolder extends JsonObject {
  host: string
  pid: number
  /** Tells two holders of one process apart. */
  run: string
}

export interface LeaseTakenData extends JsonObject {
  holder: LeaseHolder
  /** Milliseconds since the epoch. */
  expiresAt: number
}

export interface LeaseState {
  readonly revision: bigint | 'no_stream'
  /** Null when nobody took it, or its last holder released it. */
  readonly holder: LeaseHolder | null
  readonly expiresAt: number
}

export interface Here {
  readonly host: string
  readonly alive: (pid: number) => boolean
  readonly now: number
}

/**
 * Whether the lease can be taken: nobody holds it, the holder let it run out (stopped renewing),
 * or the holder is a process of this host that has ended (killed: no need to wait out its time).
 */
export const leaseFree = (state: LeaseState, here: Here): boolean =>
  state.holder === null || state.expiresAt <= here.now || (state.holder.host === here.host && !here.alive(state.holder.pid))

const readLease = async (log: EventLog, stream: string): Promise<LeaseState> => {
  try {
    for await (const last of log.readStream(stream, { direction: 'backwards', maxCount: 1 })) {
      if (last.type !== IMPORT_LEASE_TAKEN) return { revision: last.revision, holder: null, expiresAt: 0 }
      const data = last.data as LeaseTakenData
      return { revision: last.revision, holder: data.holder, expiresAt: data.expiresAt }
    }
  } catch (error) {
    if (!(error instanceof StreamNotFound)) throw error
  }
  return { revision: 'no_stream', holder: null, expiresAt: 0 }
}

export interface LeaseOptions {
  /** How long the lease lasts without a renewal. Default 30 s; renewed every third of it. */
  readonly ttlMs?: number
  /** How often a waiting run looks again. Default 250 ms. */
  readonly pollMs?: number
  /** Told once when another run holds the lease, before waiting for it. */
  readonly onWait?: (holder: LeaseHolder) => void
  /** Asked while waiting: true gives up (the answer is then null). */
  readonly shouldStop?: () => boolean
}

export interface ImportLease {
  readonly holder: LeaseHolder
  /** False once a renewal found the lease taken over (this run stopped renewing in time). */
  readonly held: () => boolean
  readonly release: () => Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Takes the lease, waiting for as long as a live run holds it. */
export const acquireImportLease = async (log: EventLog, stream: string, options: LeaseOptions = {}): Promise<ImportLease | null> => {
  const ttlMs = options.ttlMs ?? 30_000
  const holder: LeaseHolder = { host: hostname(), pid: process.pid, run: newUlid() }
  const take = (expected: bigint | 'no_stream') => log.append(stream, [{
    id: newEventId(), type: IMPORT_LEASE_TAKEN, data: { holder, expiresAt: Date.now() + ttlMs } satisfies LeaseTakenData,
  }], { expectedRevision: expected })
  let told = false
  for (;;) {
    const state = await readLease(log, stream)
    if (leaseFree(state, { host: holder.host, alive: processAlive, now: Date.now() })) {
      try {
        return holding(log, stream, holder, (await take(state.revision)).nextExpectedRevision, ttlMs, take)
      } catch (error) {
        if (!(error instanceof WrongExpectedVersion)) throw error
        continue // another run took it in between: look again
      }
    }
    if (!told && state.holder) options.onWait?.(state.holder)
    told = true
    if (options.shouldStop?.()) return null
    await sleep(options.pollMs ?? 250)
  }
}

const holding = (
  log: EventLog, stream: string, holder: LeaseHolder, taken: bigint, ttlMs: number,
  take: (expected: bigint) => Promise<{ nextExpectedRevision: bigint }>,
): ImportLease => {
  let revision: bigint | null = taken
  let renewing: Promise<void> = Promise.resolve()
  const renew = async (): Promise<void> => {
    if (revision === null) return
    try {
      revision = (await take(revision)).nextExpectedRevision
    } catch (error) {
      // Taken over: the ledger still refuses a second commit of any chunk, so carrying on is safe.
      if (error instanceof WrongExpectedVersion) revision = null
    }
  }
  const timer = setInterval(() => { renewing = renewing.then(renew) }, ttlMs / 3)
  timer.unref()
  return {
    holder,
    held: () => revision !== null,
    release: async () => {
      clearInterval(timer)
      await renewing
      if (revision === null) return
      try {
        await log.append(stream, [{ id: newEventId(), type: IMPORT_LEASE_RELEASED, data: { holder } }], { expectedRevision: revision })
      } catch (error) {
        if (!(error instanceof WrongExpectedVersion)) throw error
      }
      revision = null
    },
  }
}
