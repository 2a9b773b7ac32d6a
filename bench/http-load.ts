import { Agent, request } from 'node:http'

export interface LoadResult {
  readonly requests: number
  readonly perSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly failures: number
}

export interface LoadOptions {
  readonly url: string
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
  readonly connections: number
  readonly durationMs: number
  /** A status other than this counts as a failure. */
  readonly expectStatus?: number
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!

/** Closed-loop HTTP load: `connections` keep-alive connections, each sending its next request when the last one is answered. */
export const load = async (options: LoadOptions): Promise<LoadResult> => {
  const url = new URL(options.url)
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
  const latencies: number[] = []
  let failures = 0
  const once = () => new Promise<void>((resolve) => {
    const started = performance.now()
    const req = request({
      agent, host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: options.method ?? 'GET',
      headers: { ...options.headers, ...(options.body ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}) },
    }, (response) => {
      response.resume()
      response.on('end', () => {
        latencies.push(performance.now() - started)
        if (response.statusCode !== (options.expectStatus ?? 200)) failures++
        resolve()
      })
    })
    req.on('error', () => { failures++; resolve() })
    req.end(options.body)
  })
  const deadline = performance.now() + options.durationMs
  const started = performance.now()
  await Promise.all(Array.from({ length: options.connections }, async () => {
    while (performance.now() < deadline) await once()
  }))
  const elapsed = (performance.now() - started) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  return { requests: latencies.length, perSecond: latencies.length / elapsed, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), failures }
}
