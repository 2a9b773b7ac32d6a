import type { Config } from '../../src/config.js'
import type { ProjectionStatus, QuarantinedEvent } from '../../src/readstore/projections.js'

/** What a projection thread is started with. */
export interface ThreadData {
  readonly config: Config
  /** Names of the projectors this thread runs. */
  readonly projectors: readonly string[]
}

/** A question the main thread asks a projection thread. */
export type Call = { readonly call: 'status' | 'quarantined' | 'stop' } | { readonly call: 'rebuild'; readonly name: string }

/** Main thread → projection thread. */
export type ToThread = { readonly type: 'wake' } | (Call & { readonly type: 'request'; readonly id: number })

/** Projection thread → main thread. Positions travel as `commit/prepare` strings. */
export type FromThread =
  | { readonly type: 'started' }
  | { readonly type: 'advanced'; readonly name: string; readonly position: string }
  | { readonly type: 'live'; readonly name: string }
  | { readonly type: 'log'; readonly level: 'info' | 'warn' | 'error'; readonly fields: Record<string, unknown>; readonly message: string }
  | { readonly type: 'reply'; readonly id: number; readonly value?: Record<string, ProjectionStatus> | QuarantinedEvent[]; readonly error?: string }
