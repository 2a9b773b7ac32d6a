import { within } from './kernel/within.js'

/** One server the process needs, and how to ask whether it answers. */
export interface StoreProbe {
  /** In words, for logs and health: `the event log (EventStoreDB at esdb://…)`. */
  readonly what: string
  /** Resolves once the server has answered; fails while it does not. */
  check(): Promise<void>
  /** A failure that waiting cannot mend (a server that can never hold read models): waiting stops with it. */
  readonly fatal?: (error: unknown) => boolean
}

/** The reason a probe failed, in one line. */
export const reasonOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300)

/** The probes that failed or did not answer within `timeoutMs`, asked at the same time, with their errors. */
export const unanswered = async (probes: readonly StoreProbe[], timeoutMs: number): Promise<{ probe: StoreProbe; error: unknown }[]> => {
  const results = await Promise.all(probes.map((probe) => within(timeoutMs, probe.check()).then(() => null, (error: unknown) => ({ probe, error }))))
  return results.filter((result) => result !== null)
}

export interface WaitOptions {
  /** How long one probe may take. */
  readonly probeTimeoutMs: number
  /** Gives up after this long with StoresNotAnswering; waits for ever when not given. */
  readonly giveUpAfterMs?: number
  /** Told once per store, the first time it does not answer. */
  readonly onWaiting?: (what: string, reason: string) => void
  /** Told of each store as it answers. */
  readonly onAnswered?: (what: string) => void
  /** Stops waiting (resolves false) when it returns true. */
  readonly stopped?: () => boolean
}

/** The stores did not answer within the time a command may wait for them. */
export class StoresNotAnswering extends Error {
  override name = 'StoresNotAnswering'
}

const FIRST_RETRY_MS = 250
const LONGEST_RETRY_MS = 5000

/**
 * Probes every store until each has answered once, retrying those that did not after a backoff
 * (0.25 s, doubling up to 5 s). Resolves true once all have answered; false when stopped.
 */
export const waitForStores = async (probes: readonly StoreProbe[], options: WaitOptions): Promise<boolean> => {
  const started = Date.now()
  const told = new Set<StoreProbe>()
  let waiting = [...probes]
  for (let retryMs = FIRST_RETRY_MS; ; retryMs = Math.min(LONGEST_RETRY_MS, retryMs * 2)) {
    if (options.stopped?.()) return false
    const failed = await unanswered(waiting, options.probeTimeoutMs)
    for (const probe of waiting) if (!failed.some((failure) => failure.probe === probe)) options.onAnswered?.(probe.what)
    if (failed.length === 0) return true
    const fatal = failed.find(({ probe, error }) => probe.fatal?.(error))
    if (fatal) throw fatal.error
    waiting = failed.map((failure) => failure.probe)
    for (const { probe, error } of failed) {
      if (!told.has(probe)) options.onWaiting?.(probe.what, reasonOf(error))
      told.add(probe)
    }
    if (options.giveUpAfterMs !== undefined && Date.now() - started + retryMs > options.giveUpAfterMs) {
      const seconds = Math.round(options.giveUpAfterMs / 100) / 10
      throw new StoresNotAnswering(failed.map(({ probe, error }) => `${probe.what} did not answer within ${seconds} s: ${reasonOf(error)}`).join('; '))
    }
    await new Promise((resolve) => setTimeout(resolve, retryMs))
  }
}

/** The stores that have not answered since the start, as the HTTP gate and health ask for them. */
export class StoreReadiness {
  private readonly waiting: Set<string>

  constructor(private readonly probes: readonly StoreProbe[]) {
    this.waiting = new Set(probes.map((probe) => probe.what))
  }

  missing(): readonly string[] {
    return [...this.waiting]
  }

  /** Waits for every store as `waitForStores` does, keeping `missing` current. */
  async wait(options: Omit<WaitOptions, 'onAnswered'>): Promise<boolean> {
    return waitForStores(this.probes, { ...options, onAnswered: (what) => this.waiting.delete(what) })
  }
}
