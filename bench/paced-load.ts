import { connect, type Socket } from 'node:net'
import { percentile } from './setup.js'

export interface PacedOptions {
  readonly url: string
  readonly method: 'GET' | 'POST'
  readonly body?: string
  /** Requests per second, evenly spaced, whatever the answers' pace. */
  readonly rate: number
  readonly durationMs: number
  /** Keep-alive connections to spread the requests over. */
  readonly connections: number
  /** How long after the run answers are awaited. Default 10 s. */
  readonly graceMs?: number
  /**
   * Sleep until the next request is due instead of polling (default false). For a run whose
   * server shares this process's core: a polling generator would take that core from it.
   */
  readonly sleeps?: boolean
  /** Ends the run before `durationMs` once it answers true: no request is sent after, and those sent are awaited. */
  readonly stop?: () => boolean
  /**
   * Count every answer by status instead of failing the run on one that is not 2xx: for a load
   * meant to be refused in part. The percentiles are then those of the 2xx answers.
   */
  readonly countStatuses?: boolean
  /**
   * Take the connection idle the longest for each request (default: the one idle the shortest).
   * For many clients each sending now and then: every connection carries requests, none stays
   * unused long enough for a server to time it out.
   */
  readonly rotate?: boolean
}

export interface PacedResult {
  readonly sent: number
  /** Requests still unanswered at the end of the grace, counted in the percentiles as lasting until then. */
  readonly unanswered: number
  /** Answered requests per second over the run. */
  readonly perSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  /** When each answer arrived, in ms from the start of the run, in the order they arrived. */
  readonly answeredAtMs: readonly number[]
  /** Answers by status (with `countStatuses`). */
  readonly statuses: Readonly<Record<number, number>>
  /** 503 answers without a `Retry-After` header. */
  readonly refusedWithoutRetryAfter: number
  /** Idle connections the server closed, each replaced by a new one. */
  readonly reconnects: number
  /** Answers on connections that carried no request (a server timing out an idle connection). */
  readonly unsolicited: number
}

/**
 * Answers per second that arrived from `fromMs` to `toMs` of the run: the rate a server sustained
 * once past the start, without the run's last, still unanswered, requests counting against it.
 */
export const answeredPerSecond = (result: PacedResult, fromMs: number, toMs: number): number =>
  (result.answeredAtMs.filter((at) => at >= fromMs && at < toMs).length * 1000) / (toMs - fromMs)

interface Answer {
  readonly status: number
  readonly retryAfter: boolean
}

/** One answer read off a keep-alive connection: its status once the whole body has arrived. */
class AnswerReader {
  private pending: Buffer = Buffer.alloc(0)

  /** The answers `chunk` completes, in order. */
  take(chunk: Buffer): Answer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    const statuses: Answer[] = []
    for (;;) {
      const end = this.pending.indexOf('\r\n\r\n')
      if (end < 0) return statuses
      const head = this.pending.toString('latin1', 0, end)
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
      if (!length) throw new Error(`an answer without content-length: ${head.slice(0, 200)}`)
      const total = end + 4 + Number(length[1])
      if (this.pending.length < total) return statuses
      statuses.push({ status: Number(head.slice(9, 12)), retryAfter: /\r\nretry-after:/i.test(head) })
      this.pending = this.pending.subarray(total)
    }
  }
}

/**
 * Open-loop HTTP load: the n-th request is due at start + n / rate, and is written as soon as a
 * connection is free; its latency runs from when it was due, so a server that falls behind shows
 * its whole queue (no coordinated omission). Unlike autocannon's `overallRate`, which lets each
 * connection send back-to-back until its share of the second is used and then pauses, the
 * requests are spread evenly over each second. Unless told to sleep, the loop polls without
 * sleeping, so this process needs a core of its own. Any answer but 2xx fails the run; a request still unanswered when
 * the grace after the run ends counts with the time it has waited.
 */
export const pacedLoad = async (options: PacedOptions): Promise<PacedResult> => {
  const url = new URL(options.url)
  const body = options.body === undefined ? null : Buffer.from(options.body)
  const request = Buffer.concat([
    Buffer.from(`${options.method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n`
      + (body === null ? '\r\n' : `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`)),
    ...(body === null ? [] : [body]),
  ])
  const interval = 1000 / options.rate
  let total = Math.floor((options.durationMs / 1000) * options.rate)
  const latencies: number[] = []
  const answeredAtMs: number[] = []
  const statusCounts: Record<number, number> = {}
  let refusedWithoutRetryAfter = 0
  let answers = 0
  const idle: Socket[] = []
  /** Due times of requests waiting for a free connection. */
  const waiting: number[] = []
  let failure: Error | null = null

  const open = (): Promise<Socket> => new Promise<Socket>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => resolve(socket))
    socket.setNoDelay(true)
    socket.once('error', reject)
  })
  const sockets = new Set(await Promise.all(Array.from({ length: options.connections }, open)))
  /** When the request each busy connection carries was due. */
  const dueOf = new Map<Socket, number>()
  let finished = false
  /** Connections carrying a request. */
  const busy = new Set<Socket>()
  const send = (socket: Socket, due: number): void => {
    dueOf.set(socket, due)
    busy.add(socket)
    socket.write(request)
  }
  /** A connection with nothing to carry: it takes the oldest request waiting, or waits itself. */
  const free = (socket: Socket): void => {
    const next = waiting.shift()
    if (next === undefined) idle.push(socket)
    else send(socket, next)
  }
  let reconnects = 0
  let unsolicited = 0
  const started = performance.now()
  const attach = (socket: Socket): void => {
    const reader = new AnswerReader()
    // A server may close or reset a connection that has stayed idle (one that never sent a
    // request, past its header timeout): a client would open another, and so does the load.
    // Closing one that carries a request fails the run.
    socket.on('error', (error) => { if (busy.has(socket)) failure ??= error })
    socket.on('close', () => {
      sockets.delete(socket)
      if (finished) return
      if (busy.has(socket)) {
        failure ??= new Error('the server closed a connection that carried a request')
        return
      }
      idle.splice(idle.indexOf(socket), 1)
      reconnects++
      open().then((replacement) => {
        if (finished) return void replacement.destroy()
        sockets.add(replacement)
        attach(replacement)
      }, (error: Error) => { failure ??= error })
    })
    socket.on('data', (chunk: Buffer) => {
      let statuses: Answer[]
      try {
        statuses = reader.take(chunk)
      } catch (error) {
        failure ??= error as Error
        return
      }
      for (const { status, retryAfter } of statuses) {
        // An answer on a connection that carries no request: the server timing it out (a 408 before
        // it closes a connection that never sent one). It answers none of the load's requests.
        if (!busy.delete(socket)) {
          unsolicited++
          continue
        }
        const ok = status >= 200 && status < 300
        if (!ok && !options.countStatuses) failure ??= new Error(`${options.method} ${options.url} answered ${status}`)
        statusCounts[status] = (statusCounts[status] ?? 0) + 1
        if (status === 503 && !retryAfter) refusedWithoutRetryAfter++
        answers++
        const now = performance.now()
        if (ok) {
          latencies.push(now - dueOf.get(socket)!)
          answeredAtMs.push(now - started)
        }
        free(socket)
      }
    })
    free(socket)
  }
  for (const socket of sockets) attach(socket)

  let issued = 0
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now()
      if (options.stop?.() === true) total = Math.min(total, issued)
      while (issued < total && started + issued * interval <= now) {
        const due = started + issued * interval
        issued++
        const socket = options.rotate ? idle.shift() : idle.pop()
        if (socket === undefined) waiting.push(due)
        else send(socket, due)
      }
      if (failure !== null || answers >= total || now - started > options.durationMs + (options.graceMs ?? 10_000)) return resolve()
      if (options.sleeps && issued < total) setTimeout(tick, Math.max(0, started + issued * interval - performance.now()))
      else if (options.sleeps) setTimeout(tick, 5)
      else setImmediate(tick)
    }
    tick()
  })
  const ended = performance.now()
  const answered = answers
  finished = true
  for (const socket of sockets) socket.destroy()
  if (failure !== null) throw failure
  // A request still unanswered after the grace counts as taking at least until now.
  for (const due of [...busy].map((socket) => dueOf.get(socket)!).concat(waiting)) latencies.push(ended - due)
  return {
    sent: total,
    unanswered: total - answered,
    perSecond: (answered * 1000) / (ended - started),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: percentile(latencies, 1),
    answeredAtMs,
    statuses: statusCounts,
    refusedWithoutRetryAfter,
    reconnects,
    unsolicited,
  }
}
