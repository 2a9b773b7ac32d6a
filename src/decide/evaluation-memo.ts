import type { LRUCache } from 'lru-cache'
import { boundedCache } from '../kernel/bounded-cache.js'
import type { CompiledFlagSet } from './compile.js'
import type { FilterDate } from './dates.js'
import type { Properties } from './match-context.js'
import type { FlagEvaluation } from './results.js'

/** Identifiers remembered at most, per flag set. */
const IDENTIFIERS = 100_000
/** Bytes remembered at most, per flag set: 24 MiB. */
const BYTES = 24 * 1024 * 1024
/** Identifiers asked about lately, under any flag set: the next ask of one of them is remembered. */
const ASKED_BEFORE = 100_000

/**
 * An entry's bytes, as measured on Node 20 (50 flags and 8 property keys came to about 2.2 KB): a
 * fixed part for the entry's objects, 32 bytes a flag (two hashes, an evaluation, a list slot)
 * and 64 a property key (its value kept, its date parsed).
 */
const entryBytes = (definitions: CompiledFlagSet): number => 512 + definitions.size * 32 + definitions.propertyKeys.length * 64

/** What decide remembers of one identifier under one flag set. */
export interface Remembered {
  /** Rollout and variant bucketing hashes by flag position (two slots a flag), NaN until computed. */
  readonly hashes: Float64Array
  /**
   * The person properties `evaluations` were made for, only the keys the flags read, all of them
   * primitive values; null when none are kept.
   */
  props: Properties | null
  /**
   * By flag position, the evaluation of each flag that reads nothing but the identifier and
   * these properties (`CompiledFlag.rememberable`); undefined until made.
   */
  readonly evaluations: (FlagEvaluation | undefined)[]
  /**
   * The flags the last request was answered with: given again, frozen, to a request whose
   * evaluations are the same, so that what is written of them is written once (see `decideBody`).
   */
  flags: readonly FlagEvaluation[] | null
  /** Date strings of `props` read by date filters, parsed (relative ones are resolved by each request): one at most a key. */
  readonly dates: Map<string, FilterDate>
}

/**
 * The bucketing hashes and evaluations of the identifiers decide was asked about lately, per
 * compiled flag set. SDKs ask for the same person's flags again and again (each page load, each
 * server request): each of a person's rollout and variant hashes is a SHA-1 that never changes
 * while the flags do not, and a flag that reads no clock, group, cohort or other flag answers the
 * same while the person's properties it reads are the same. An identifier is remembered from its
 * second ask on: one asked about only once (a visitor who never comes back, a server evaluating
 * each user once) costs a key in a short list rather than an entry. A new flag set (any flag
 * changed) starts with nothing remembered.
 */
export class EvaluationMemo {
  private readonly bySet = new WeakMap<CompiledFlagSet, LRUCache<string, Remembered>>()
  private readonly askedBefore = boundedCache<string, true>({ max: ASKED_BEFORE })

  /**
   * What is remembered of `identifier` under `definitions`, made empty when it was asked about
   * lately (under these flags or others) but not remembered; undefined when it was not.
   */
  of(definitions: CompiledFlagSet, identifier: string): Remembered | undefined {
    let identifiers = this.bySet.get(definitions)
    if (identifiers === undefined) {
      const bytes = entryBytes(definitions)
      identifiers = boundedCache<string, Remembered>({ max: IDENTIFIERS, maxSize: BYTES, sizeOf: () => bytes })
      this.bySet.set(definitions, identifiers)
    }
    let remembered = identifiers.get(identifier)
    if (remembered !== undefined) return remembered
    if (this.askedBefore.get(identifier) === undefined) {
      this.askedBefore.set(identifier, true)
      return undefined
    }
    remembered = { hashes: new Float64Array(definitions.size * 2).fill(Number.NaN), props: null, evaluations: new Array<FlagEvaluation | undefined>(definitions.size), flags: null, dates: new Map() }
    identifiers.set(identifier, remembered)
    return remembered
  }
}
