import type { ActivitySource } from '../kernel/activity-source.js'
import type { CollectionOf, ReadModelDocuments } from './documents.js'

/**
 * A management resource whose whole history is its own stream, as `hedgelog audit`, the activity
 * log and `?as_of=` read it. A feature module names its own.
 */
export interface AuditedResource {
  /** The word `hedgelog audit` takes for it, and the start of its stream names: `dashboard` → `dashboard-12`. */
  readonly kind: string
  /** The read model that holds its current state. */
  readonly collection: CollectionOf<ReadModelDocuments>
  readonly stream: (id: number) => string
  /** Whether it is the environment itself; otherwise it belongs to one, by its `environment_id`. */
  readonly isEnvironment?: boolean
  // The sources differ in state and event types; callers only fold and describe.
  readonly activity: ActivitySource<any, any>
}
