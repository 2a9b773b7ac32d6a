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
  readonly connections: number
  readonly durationMs: number
  /** Open loop: requests per second over all connections, whatever the answers' pace. */
  readonly overallRate?: number
}

/**
 * HTTP load from this process with autocannon: closed loop (each connection sends its next request
 * when the last is answered) unless `overallRate` is given. Any answer other than 2xx, error or
 * timeout fails the measurement: a figure over failed requests would flatter the server.
 */
export const load = async (options: LoadOptions): Promise<LoadResult> => {
  const method = options.method ?? 'GET'
  const headers = { ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...options.headers }
  const bodies = options.bodies ?? []
  const result = await autocannon({
    url: options.url, method, headers, connections: options.connections,
    duration: Math.max(1, Math.round(options.durationMs / 1000)),
    ...(bodies.length === 1 ? { body: bodies[0] } : {}),
    ...(bodies.length > 1 ? { requests: bodies.map((body) => ({ method, body, headers })) } : {}),
    ...(options.overallRate !== undefined ? { overallRate: Math.max(1, Math.round(options.overallRate)) } : {}),
  })
  const failed = result.non2xx + result.errors + result.timeouts
  if (failed > 0) throw new Error(`${method} ${options.url}: ${failed} of ${result.requests.total} requests failed`)
  return {
    perSecond: result.requests.average, minPerSecond: result.requests.min, p50Ms: result.latency.p50, p99Ms: result.latency.p99,
    requests: result.requests.total,
  }
}

/** A short closed-loop run first, so the measured one starts warm. */
export const warmLoad = async (options: LoadOptions): Promise<LoadResult> => {
  await load({ ...options, durationMs: 1000, overallRate: undefined } as LoadOptions)
  return load(options)
}
