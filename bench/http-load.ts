import autocannon from 'autocannon'

export interface LoadResult {
  /** Answered requests per second, averaged over the run. */
  readonly perSecond: number
  /** The slowest one-second sample. */
  readonly minPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly requests: number
}

export interface LoadOptions {
  readonly url: string
  readonly method?: 'GET' | 'POST'
  readonly headers?: Record<string, string>
  /** One body, or several sent in turn on each connection. */
  readonly bodies?: readonly string[]
  /** Instead of `bodies`: the body of the n-th request of the run, each made as it is sent. */
  readonly bodyOf?: (n: number) => string
  readonly connections: number
  readonly durationMs: number
}

/**
 * Keeps this process's event loop polling, never sleeping, until `work` settles. A load generator
 * that sleeps between answers makes the server pay for waking it (on a virtual machine, an
 * interrupt sent to the other core and an exit to the hypervisor with every answer); a fast
 * server never pays it, since its client never gets to sleep, so the slower server of a
 * comparison would be charged for the client's idleness. Clients on other machines cost the
 * server nothing to wake, so the figures are taken with a client that is always awake.
 */
const busyPolling = <T>(work: PromiseLike<T>): Promise<T> => {
  let polling = true
  const poll = (): void => {
    if (polling) setImmediate(poll)
  }
  poll()
  return Promise.resolve(work).finally(() => { polling = false })
}

/**
 * Closed-loop HTTP load from this process with autocannon: each connection sends its next request
 * when the last is answered (open-loop load is `pacedLoad`'s). Any answer other than 2xx, error or
 * timeout fails the measurement: a figure over failed requests would flatter the server.
 */
export const load = async (options: LoadOptions): Promise<LoadResult> => {
  const method = options.method ?? 'GET'
  const headers = { ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...options.headers }
  const bodies = options.bodies ?? []
  const bodyOf = options.bodyOf ?? String
  let sent = 0
  const result = await busyPolling(autocannon({
    url: options.url, method, headers, connections: options.connections,
    duration: Math.max(1, Math.round(options.durationMs / 1000)),
    ...(bodies.length === 1 ? { body: bodies[0] } : {}),
    ...(bodies.length > 1 ? { requests: bodies.map((body) => ({ method, body, headers })) } : {}),
    ...(options.bodyOf ? { requests: [{ method, headers, setupRequest: (request: object) => ({ ...request, body: bodyOf(sent++) }) }] } : {}),
  }))
  const failed = result.non2xx + result.errors + result.timeouts
  if (failed > 0) throw new Error(`${method} ${options.url}: ${failed} of ${result.requests.total} requests failed`)
  return {
    perSecond: result.requests.average, minPerSecond: result.requests.min, p50Ms: result.latency.p50, p99Ms: result.latency.p99,
    requests: result.requests.total,
  }
}

/** A short closed-loop run first, so the measured one starts warm. */
export const warmLoad = async (options: LoadOptions): Promise<LoadResult> => {
  await load({ ...options, durationMs: 1000 })
  return load(options)
}

/** Rounds of a comparison with a bare route: enough that one noisy second does not decide the figure. */
const ROUNDS = 3

/**
 * Load each side takes before a comparison: a fresh process answers `/decide` at under half its
 * steady rate for its first seconds (its code is still being compiled and its heap sized), and a
 * server that runs for days is judged by its steady rate.
 */
const WARM_UP_MS = 8000

export interface Comparison {
  /** The served route's rate as a percentage of the bare route's: the median of the rounds' ratios. */
  readonly percent: number
  /** The round whose ratio is that median. */
  readonly bare: LoadResult
  readonly served: LoadResult
  /** Each round's ratio, in order. */
  readonly rounds: readonly number[]
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * A served route's closed-loop rate as a share of a bare route's, measured in turns after both are
 * warm: bare then served, `ROUNDS` times, each for a share of `durationMs` (whole seconds, at
 * least one). On a machine whose speed drifts from second to second, each ratio compares two
 * neighbouring runs, and the median ratio is the figure.
 */
export const compareWithBare = async (bare: LoadOptions, served: LoadOptions): Promise<Comparison> =>
  (await compareEachWithBare(bare, [served]))[0]!

/**
 * Several served routes against one bare route, in the same rounds: bare, then each served route
 * in turn. Each round's ratios share that round's bare run, so two routes' shares can be told
 * apart round by round (see `roundGaps`) without the bare route's drift between two separate
 * comparisons.
 */
export const compareEachWithBare = async (bare: LoadOptions, served: readonly LoadOptions[]): Promise<Comparison[]> => {
  await load({ ...bare, durationMs: WARM_UP_MS })
  for (const options of served) await load({ ...options, durationMs: WARM_UP_MS })
  const durationMs = Math.max(1000, Math.ceil(bare.durationMs / ROUNDS / 1000) * 1000)
  const rounds: { bare: LoadResult; served: LoadResult[] }[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const baseline = await load({ ...bare, durationMs })
    const measured: LoadResult[] = []
    for (const options of served) measured.push(await load({ ...options, durationMs }))
    rounds.push({ bare: baseline, served: measured })
  }
  return served.map((_, i) => {
    const percents = rounds.map((round) => (100 * round.served[i]!.perSecond) / round.bare.perSecond)
    const middle = rounds[percents.indexOf(median(percents))]!
    return { percent: median(percents), bare: middle.bare, served: middle.served[i]!, rounds: percents }
  })
}

/** Round by round, how many points `lower` is below `higher` (two comparisons of one `compareEachWithBare`), and their median. */
export const roundGaps = (higher: Comparison, lower: Comparison): { readonly median: number; readonly rounds: readonly number[] } => {
  const rounds = higher.rounds.map((percent, i) => percent - lower.rounds[i]!)
  return { median: median(rounds), rounds }
}

/** How a comparison reads in a figure's note. */
export const comparisonNote = (comparison: Comparison, unit = 'req/s'): string =>
  `${Math.round(comparison.served.perSecond)} vs ${Math.round(comparison.bare.perSecond)} ${unit} in the median round, p99 ${comparison.served.p99Ms} ms; rounds ${comparison.rounds.map((percent) => `${percent.toFixed(1)} %`).join(', ')}`
