/** The projections a process runs, as the API, health and the CLI see them, wherever they run. */
import type { JsonObject, Position } from '../eventlog/port.js'

export type RunnerStatus = 'starting' | 'catching_up' | 'live' | 'failed' | 'stopped'

/** One log event (or one part of it) that a projection could not apply, and why. */
export interface QuarantinedEvent extends JsonObject {
  id: string
  /** The build's checkpoint name, e.g. `events@v1#1`. */
  checkpoint: string
  projection: string
  /** `commit/prepare` of the log event that was being applied. */
  position: string
  /** Which part of a packed log event, or null for the whole of it. */
  part: number | null
  event_id: string
  event_type: string
  stream_id: string
  revision: string
  error: string
}

export interface ProjectionStatus {
  readonly version: number
  readonly build: number
  readonly status: RunnerStatus | 'not_running'
  /** Decimal commit position of the last event applied, or null before the first. */
  readonly position: string | null
  /** Log positions between the head and `position`: events on SQLite, bytes on EventStoreDB. */
  readonly lag: number
  readonly rebuilding: { readonly build: number; readonly position: string | null } | null
  /** Events this build skipped because it could not apply them. */
  readonly quarantined: number
  /** Behind the head and not moving for longer than `stallAfterMs`. */
  readonly stalled: boolean
  /** The error the projection is retrying after, while it has not advanced since. */
  readonly error: string | null
  /** The head of the log when the status was taken (decimal commit position), for progress. */
  readonly head: string | null
}

/** One projection's build as the rest of the service sees it: something to wait on. */
export interface ProjectionHandle {
  /** Resolves true once everything up to `position` is applied, false after `timeoutMs` or a failure. */
  waitFor(position: Position, timeoutMs: number): Promise<boolean>
  /** Everything at or before this position has been applied (null before the first event). */
  readonly position: Position | null
}

/**
 * The projections a process runs, wherever they run (this thread or worker threads): what
 * queries wait on, what health reports, what an operator asks to rebuild.
 */
export interface Projections {
  start(): Promise<void>
  stop(): Promise<void>
  status(): Promise<Record<string, ProjectionStatus>>
  quarantined(): Promise<QuarantinedEvent[]>
  rebuild(name: string): Promise<void>
  activeRunner(name: string): ProjectionHandle | null
  /**
   * Projections whose serving build has not yet caught up with the log since this process
   * started them (a first start, or a read store rebuilt from nothing): what they hold is partial.
   */
  catchingUp(): readonly string[]
  /** Whether every projection has caught up (what `catchingUp()` tells, without allocating). */
  allCaughtUp(): boolean
  /** Resolves true once nothing is catching up, false after `timeoutMs`. */
  whenCaughtUp(timeoutMs: number): Promise<boolean>
}
