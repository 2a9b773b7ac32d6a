import type { EventLog } from '../eventlog/port.js'
import { positionToString } from '../eventlog/port.js'
import type { ReadModels } from '../readstore/read-models.js'
import { boundedCache } from '../kernel/bounded-cache.js'
import type { LRUCache } from 'lru-cache'

export interface TokenResolverOptions {
  /** How long a known token's environment is remembered (a reset token stops working after it); > 0. Default 5 s. */
  readonly ttlMs?: number
  /** How long an unknown token waits for the projections to reach the log's head. Default 2 s. */
  readonly waitMs?: number
  /** Most tokens remembered, known and unknown each; the least recently used go first. Default 10 000. */
  readonly maxEntries?: number
}

/**
 * Project token → environment id, from the `environments` read model, remembered in memory. A
 * token not found may belong to an environment created a moment ago: the lookup then waits
 * (bounded) for the projections to reach the head of the log and asks again. A token still
 * unknown is remembered with the head it was checked at, so repeats answer at once until the log
 * moves.
 */
export class TokenResolver {
  /** Known tokens' environment ids, each answered for `ttlMs` after it was found. */
  private readonly known: LRUCache<string, number>
  /** Unknown tokens, with the head of the log they were checked at. */
  private readonly unknownAt: LRUCache<string, string>
  private readonly inFlight = new Map<string, Promise<number | null>>()
  private readonly waitMs: number

  constructor(private readonly deps: { readonly models: ReadModels; readonly log: EventLog }, options: TokenResolverOptions = {}) {
    const max = options.maxEntries ?? 10_000
    this.known = boundedCache({ max, ttlMs: options.ttlMs ?? 5000 })
    this.unknownAt = boundedCache({ max })
    this.waitMs = options.waitMs ?? 2000
  }

  /** The environment id of a project token, or null when no environment has it. */
  resolve(token: string): Promise<number | null> | number | null {
    const hit = this.known.get(token)
    if (hit !== undefined) return hit
    const pending = this.inFlight.get(token)
    if (pending) return pending
    const lookup = this.lookup(token).finally(() => this.inFlight.delete(token))
    this.inFlight.set(token, lookup)
    return lookup
  }

  private async lookup(token: string): Promise<number | null> {
    const found = await this.find(token)
    if (found !== null) return this.remember(token, found)
    const head = await this.deps.log.headPosition()
    const headText = head ? positionToString(head) : 'empty'
    if (this.unknownAt.get(token) === headText) return null
    if (head) {
      // Whether or not the wait ran out, look again: the token may have been projected meanwhile.
      await this.deps.models.waitFor(head, ['environments'], this.waitMs)
      const late = await this.find(token)
      if (late !== null) return this.remember(token, late)
    }
    this.unknownAt.set(token, headText)
    return null
  }

  private async find(token: string): Promise<number | null> {
    const [environment] = await this.deps.models.find('environments', { where: { api_token: token }, limit: 1 })
    return environment ? Number(environment['id']) : null
  }

  private remember(token: string, environmentId: number): number {
    this.known.set(token, environmentId)
    this.unknownAt.delete(token)
    return environmentId
  }
}
