import { performance } from 'node:perf_hooks'

export interface Answer {
  /** 0 when no answer came (connection refused, reset or timed out). */
  readonly status: number
  readonly json: any
  readonly text: string
  /** performance.now() when the request was sent and when its answer (or error) arrived. */
  readonly start: number
  readonly end: number
  /** The connection was refused: the request never reached a server, so it had no effect. */
  readonly refused: boolean
  readonly error: string | null
}

export interface Entry {
  readonly n: number
  readonly phase: string
  readonly label: string
  readonly tags: readonly string[]
  readonly method: string
  readonly path: string
  status: number
  ms: number
  detail: string
}

const causeCode = (error: unknown): string | undefined => {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause
  return typeof cause?.code === 'string' ? cause.code : undefined
}

/**
 * JSON over real HTTP to whichever process currently serves, keeping every request with its
 * answer so that a failure can show the requests that touched the thing it is about.
 */
export class RecordedHttp {
  readonly entries: Entry[] = []
  phase = ''

  constructor(private readonly base: () => string, private readonly headers: Record<string, string>, private readonly timeoutMs = 20_000) {}

  async send(method: string, path: string, body: unknown, label: string, tags: readonly string[] = []): Promise<Answer> {
    const entry: Entry = { n: this.entries.length + 1, phase: this.phase, label, tags, method, path, status: -1, ms: 0, detail: '' }
    this.entries.push(entry)
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
    const start = performance.now()
    try {
      const response = await fetch(`${this.base()}${path}`, {
        method,
        headers: { ...this.headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        body: payload,
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      const text = await response.text()
      const end = performance.now()
      let json: any = null
      try { json = text === '' ? null : JSON.parse(text) } catch { json = null }
      entry.status = response.status
      entry.ms = Math.round(end - start)
      if (response.status >= 400) entry.detail = text.slice(0, 300)
      return { status: response.status, json, text, start, end, refused: false, error: null }
    } catch (error) {
      const end = performance.now()
      const code = causeCode(error) ?? (error as Error).name
      entry.status = 0
      entry.ms = Math.round(end - start)
      entry.detail = `no answer: ${code}`
      return { status: 0, json: null, text: '', start, end, refused: code === 'ECONNREFUSED', error: code }
    }
  }

  /** The requests tagged `tag`, one line each. */
  history(tag: string, limit = 40): string {
    const lines = this.entries.filter((e) => e.tags.includes(tag)).map((e) =>
      `    #${e.n} [${e.phase}] ${e.label}: ${e.method} ${e.path} → ${e.status === -1 ? 'pending' : e.status}${e.detail ? ` ${e.detail.replace(/\s+/g, ' ').slice(0, 160)}` : ''} (${e.ms} ms)`)
    return (lines.length > limit ? [`    … ${lines.length - limit} earlier`, ...lines.slice(-limit)] : lines).join('\n')
  }
}
