import { createHash } from 'node:crypto'
import { comparePositions, type EventLog, type JsonObject, type Position, type SubscribeOptions, type Subscription, type SubscriptionItem } from '../../eventlog/port.js'
import { canonicalJson } from '../../kernel/canonical-json.js'
import type { ReadModels } from '../../readstore/read-models.js'
import { runQuery } from '../engine/run-query.js'
import { ReadModelsSource } from '../read/read-models-source.js'
import { queryEnvironmentOf } from '../query/query-environment.js'
import { personReadsOf, usesTestAccounts } from '../query/query-service.js'
import { Generation, type LiveDefinition } from './generation.js'
import { liveQueryOf } from './live-kinds.js'
import { keptQueries } from './live-insights.js'

/** A live query whose answer differs from the engine's over the same events. */
export interface LiveDifference {
  readonly environmentId: number
  readonly cacheKey: string
  readonly kind: string
  readonly live: unknown
  readonly engine: unknown
}

/** The live queries of a replay: how many, the digest of their answers, and the first that differs from the engine. */
export interface ReplayedLive {
  readonly queries: number
  /** The analytics events the live queries were given. */
  readonly events: number
  /** SHA-256 over every answer, by cache key: equal iff every answer is equal. */
  readonly sha256: string
  /** The moment the answers are for (epoch ms); null when no query is kept live. */
  readonly at: number | null
  readonly difference: LiveDifference | null
}

/** The log as it stood at `until`: its subscriptions deliver what was at or before it, then say they caught up, and end. */
const logUntil = (log: EventLog, until: Position, seen: (event: { created: Date }) => void): EventLog => {
  const upTo = (subscription: Subscription): Subscription => ({
    unsubscribe: () => subscription.unsubscribe(),
    async *[Symbol.asyncIterator](): AsyncGenerator<SubscriptionItem> {
      for await (const item of subscription) {
        if (item.kind === 'caughtUp' || (item.kind === 'event' && comparePositions(item.event.position, until) > 0)) break
        if (item.kind === 'event') seen(item.event)
        yield item
      }
      yield { kind: 'caughtUp' }
      await subscription.unsubscribe()
    },
  })
  return new Proxy(log, {
    get(target, property) {
      if (property === 'subscribeToAll') return (options?: SubscribeOptions) => upTo(target.subscribeToAll(options))
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}

/** Numbers to nine decimals: a sum taken in another order may differ in its last bits. */
const rounded = (value: unknown): unknown => {
  if (typeof value === 'number') return Math.round(value * 1e9) / 1e9
  if (Array.isArray(value)) return value.map(rounded)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rounded(inner)]))
  return value
}

/**
 * Builds, as a generation of the service would, every query that saved insights, dashboards and
 * subscriptions keep in `models` (read models replayed up to `until`), over the log up to `until`,
 * and answers each at `now` (by default when the last captured event up to `until` was written,
 * so that two replays of one log give the same answers). With `compare`, each answer is also
 * computed by the query engine over the same read models: the first that differs is reported.
 * `liveOf` makes each live query (`liveQueryOf` unless given).
 */
export const replayedLive = async (
  log: EventLog, models: ReadModels, until: Position,
  options: { readonly now?: number; readonly compare: boolean; readonly liveOf?: typeof liveQueryOf },
): Promise<ReplayedLive> => {
  const liveOf = options.liveOf ?? liveQueryOf
  let lastWritten = 0
  const definitions = new Map<string, LiveDefinition>()
  for (const [key, { environment, node }] of await keptQueries(models)) {
    let queryEnvironment
    try {
      queryEnvironment = await queryEnvironmentOf(models, environment, usesTestAccounts(node))
    } catch {
      continue
    }
    const probe = liveOf(node, queryEnvironment, options.now ?? Date.now())
    if (probe === null) continue
    definitions.set(key, { key, environmentId: environment.id, node, environment: queryEnvironment, live: () => liveOf(node, queryEnvironment, options.now ?? lastWritten)! })
  }
  if (definitions.size === 0) return { queries: 0, events: 0, sha256: createHash('sha256').digest('hex'), at: null, difference: null }
  const generation = new Generation({
    log: logUntil(log, until, (event) => { lastWritten = Math.max(lastWritten, event.created.getTime()) }),
    models,
    // The read models hold everything up to `until`: nothing is left to wait for.
    projections: { activeRunner: () => ({ waitFor: async () => true, position: until }), whenCaughtUp: async () => true },
    maxEntries: Number.MAX_SAFE_INTEGER,
  }, definitions.values(), () => {})
  generation.start()
  while (!generation.caughtUp && generation.failure === null) await new Promise((resolve) => setTimeout(resolve, 20))
  if (generation.failure !== null) throw new Error(`replaying the live insights failed: ${generation.failure}`)
  const at = options.now ?? lastWritten
  const hash = createHash('sha256')
  let difference: LiveDifference | null = null
  try {
    for (const key of [...definitions.keys()].sort()) {
      const build = generation.builds.get(key)!
      const answer = build.stale ? null : build.live.answer(at)
      hash.update(`${key}\n${canonicalJson(rounded(answer))}\n`)
      if (!options.compare || difference !== null || answer === null) continue
      const { node, environment, environmentId } = build.definition
      const engine = await runQuery(node, { environment, now: at }, new ReadModelsSource(models, environmentId, personReadsOf(node)))
      if (canonicalJson(rounded(engine)) !== canonicalJson(rounded(answer))) {
        difference = { environmentId, cacheKey: key, kind: node.kind, live: answer, engine }
      }
    }
  } finally {
    await generation.stop()
  }
  return { queries: definitions.size, events: generation.applied, sha256: hash.digest('hex'), at, difference }
}
