import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { Test } from 'tap'
import type { EventLog } from '../../src/eventlog/port.js'
import type { ReadModels } from '../../src/readstore/read-models.js'
import { world } from './world.js'

/** What one request answered, with the error behind a 5xx when the app threw one. */
export interface Answer {
  readonly status: number
  readonly body: string
  readonly error: string | undefined
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

/** One request a race fires, against the aggregate `C` made for the race. */
export interface Op<C> {
  readonly run: (aggregate: C) => Promise<Answer>
  /** The only statuses this op may answer, when a concurrent change cannot excuse a refusal. */
  readonly only?: readonly number[]
  /** What a 2xx answer's body must hold besides being JSON: a message when it does not. */
  readonly check?: (body: any) => string | null
  /** Statuses PostHog answers here with an empty body (a refused DELETE's 405, the remote config route's 404). */
  readonly bare?: readonly number[]
}

const ERROR_HEADER = 'x-race-error'

/**
 * Names, on each 5xx answer, the error the route threw: its type, message and the first frame of
 * Hedgelog's own code. Call before the app's first request (hooks are fixed once it is ready).
 */
export const exposeErrors = (app: FastifyInstance): void => {
  app.addHook('onError', (_request, reply, error, done) => {
    const frame = (error.stack ?? '').split('\n').find((line) => /\/(src|projections)\//.test(line))?.trim() ?? ''
    const text = `${error.name}: ${error.message} ${frame.replace(/^at /, '@ ').replace(/.*\/dist\//, '@ ')}`
    void reply.header(ERROR_HEADER, encodeURIComponent(text.slice(0, 400)))
    done()
  })
}

/**
 * Where a raced request lets the other request of its pair run to the end: before its command
 * first reads the aggregate's stream (after the route's own checks on the read model), or when it
 * first waits for a projection to answer from the read model (after its command committed).
 * Absent while a race's aggregate is set up, and for the other request.
 */
interface Racing {
  readonly stream: string
  readonly yieldAt: 'read' | 'settle'
  /** Runs the other request to its end, once; later calls wait for the same run. */
  readonly letOtherRun: () => Promise<void>
}
const racing = new AsyncLocalStorage<Racing>()

/** The longest a request waits for the other of its pair, should that ever wait for it. */
const PATIENCE_MS = 2000

const yieldTo = async (other: () => Promise<void>): Promise<void> => {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([other(), new Promise((resolve) => { timer = setTimeout(resolve, PATIENCE_MS) })])
  clearTimeout(timer)
}

/**
 * Lets `raceEveryPair` interleave the two requests of a pair at the two places where a route can
 * meet a concurrent change: between reading the read model and the command reading the log, and
 * between the command's commit and the read model answering (as when the projection threads of a
 * busy server, which run at the lowest priority, fall behind). Call once, before any race.
 */
export const interleave = (log: EventLog, models: ReadModels): void => {
  const readStream = log.readStream.bind(log)
  log.readStream = (stream, options) => {
    const race = racing.getStore()
    if (race?.yieldAt !== 'read' || stream !== race.stream) return readStream(stream, options)
    return (async function* () {
      await yieldTo(race.letOtherRun)
      yield* readStream(stream, options)
    })()
  }
  const waitFor = models.waitFor.bind(models)
  models.waitFor = async (...args) => {
    const race = racing.getStore()
    if (race?.yieldAt === 'settle') await yieldTo(race.letOtherRun)
    return waitFor(...args)
  }
}

/** A service in this process (`world`) ready for races, with a caller holding the all-scopes key. */
export const raceWorld = async (t: Test) => {
  const w = await world(t)
  exposeErrors(w.app)
  interleave(w.log, w.models)
  return { ...w, api: caller(w.app, w.bearer(w.key.value)) }
}

/** A JSON caller of the app through `inject`, authenticated with `headers`. */
export const caller = (app: FastifyInstance, headers: Record<string, string>) =>
  async (method: Method, url: string, payload?: unknown): Promise<Answer> => {
    const options: InjectOptions = { method, url, headers: { host: 'localhost', ...headers } }
    if (payload !== undefined) options.payload = payload as InjectOptions['payload']
    const response = await app.inject(options)
    const error = response.headers[ERROR_HEADER]
    return { status: response.statusCode, body: response.body, error: typeof error === 'string' ? decodeURIComponent(error) : undefined }
  }

/** The JSON body of a request that sets a race up, which must answer `status`. */
export const bodyOf = async (answer: Promise<Answer>, status = 200): Promise<Record<string, any>> => {
  const { status: got, body } = await answer
  if (got !== status) throw new Error(`set-up request answered ${got}, not ${status}: ${body}`)
  return body === '' ? {} : JSON.parse(body)
}

const ERROR_TYPES = new Set(['validation_error', 'authentication_error', 'invalid_request', 'server_error', 'throttled_error'])

/** Why an answer is not one PostHog could give (null when it is). */
export const problemWith = (answer: Answer, bare: readonly number[] = []): string | null => {
  const { status, body } = answer
  if (status >= 500) return `${status} ${answer.error ?? body}`
  if (status === 204) return body === '' ? null : `204 with a body: ${body.slice(0, 200)}`
  if (bare.includes(status) && body === '') return null
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return `${status} with a body that is not JSON: ${body.slice(0, 200)}`
  }
  if (status === 200 || status === 201) return null
  if (status >= 400 && status < 500) {
    const error = parsed as Record<string, unknown>
    const shaped = error !== null && typeof error === 'object' && Object.keys(error).sort().join() === 'attr,code,detail,type' &&
      ERROR_TYPES.has(String(error['type'])) && typeof error['code'] === 'string' && typeof error['detail'] === 'string' &&
      (error['attr'] === null || typeof error['attr'] === 'string')
    return shaped ? null : `${status} not in PostHog's error shape: ${body.slice(0, 200)}`
  }
  return `unexpected status ${status}: ${body.slice(0, 200)}`
}

export interface Race<C extends Raced, V extends string> {
  /** The states a raced aggregate starts from; every pair is raced from each. */
  readonly starts: readonly V[]
  /** A fresh aggregate in that state for one race, with its read models caught up. */
  readonly fresh: (start: V) => Promise<C>
  readonly ops: Readonly<Record<string, Op<C>>>
  /** Races run at the same time, each on its own aggregate. */
  readonly parallel?: number
  /** What is wrong with the aggregate once both requests of a race have answered (null when nothing). */
  readonly after?: (aggregate: C) => Promise<string | null>
}

/** A raced aggregate names its stream, where the first request of a pair lets the second run. */
export interface Raced {
  readonly stream: string
}

/**
 * How the two requests of a pair meet: started together; or the second run whole while the first
 * is between its route's checks and its command; or while the first, committed, is about to
 * answer from the read model (the second runs after the first when the first never gets there).
 */
const TIMINGS = ['together', 'second inside the first\'s command', 'second before the first answers'] as const
type Timing = typeof TIMINGS[number]

const once = (run: () => Promise<unknown>): (() => Promise<void>) => {
  let running: Promise<void> | null = null
  return () => (running ??= run().then(() => undefined))
}

/** Fires `first` and `second` on `aggregate`, meeting as `timing` says. */
const racePair = async <C extends Raced>(aggregate: C, first: Op<C>, second: Op<C>, timing: Timing): Promise<[Answer, Answer]> => {
  let secondAnswer: Answer | undefined
  const runSecond = once(async () => { secondAnswer = await racing.exit(() => second.run(aggregate)) })
  if (timing === 'together') return Promise.all([first.run(aggregate), second.run(aggregate)])
  const yieldAt = timing === 'second inside the first\'s command' ? 'read' : 'settle'
  const firstAnswer = await racing.run({ stream: aggregate.stream, yieldAt, letOtherRun: runSecond }, () => first.run(aggregate))
  await runSecond()
  return [firstAnswer, secondAnswer!]
}

/**
 * Races every ordered pair of `ops` (an op with itself included) from every start, in every
 * timing, each race on a fresh aggregate (with `interleave` in place, as `raceWorld` puts it).
 * Every answer must be 2xx, or a 4xx in PostHog's error shape, and pass its op's `only` and
 * `check`, and the aggregate must then pass the race's `after`; one assertion lists every failure.
 */
export const raceEveryPair = async <C extends Raced, V extends string>(t: Test, race: Race<C, V>): Promise<void> => {
  const names = Object.keys(race.ops)
  const jobs = race.starts.flatMap((start) => TIMINGS.flatMap((timing) =>
    names.flatMap((first) => names.map((second) => ({ start, timing, first, second })))))
  const problems: string[] = []
  const statuses = new Map<string, Set<number>>()
  let next = 0
  const worker = async () => {
    while (next < jobs.length) {
      const { start, timing, first, second } = jobs[next++]!
      const aggregate = await race.fresh(start)
      const answers = await racePair(aggregate, race.ops[first]!, race.ops[second]!, timing)
      const broken = race.after ? await race.after(aggregate) : null
      if (broken !== null) problems.push(`${first} ‖ ${second} ${timing}, from ${start}: ${broken}`)
      answers.forEach((answer, i) => {
        const name = i === 0 ? first : second
        statuses.set(name, (statuses.get(name) ?? new Set<number>()).add(answer.status))
        const op = race.ops[name]!
        const problem = problemWith(answer, op.bare) ??
          (op.only && !op.only.includes(answer.status) ? `${answer.status}, where only ${op.only.join('/')} will do: ${answer.body.slice(0, 200)}` : null) ??
          (op.check && answer.status < 300 && answer.body !== '' ? op.check(JSON.parse(answer.body)) : null)
        if (problem !== null) problems.push(`${first} ‖ ${second} ${timing}, from ${start}: ${name} answered ${problem}`)
      })
    }
  }
  await Promise.all(Array.from({ length: race.parallel ?? 16 }, worker))
  t.comment(`answers: ${[...statuses].map(([name, seen]) => `${name} ${[...seen].sort().join('/')}`).join(', ')}`)
  t.same(problems, [], `${names.length}² ordered pairs × ${race.starts.length} starts × ${TIMINGS.length} timings: no 5xx, every answer PostHog's`)
}
