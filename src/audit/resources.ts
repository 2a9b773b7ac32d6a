import type { ActivitySource } from '../activity/activity-log.js'
import { environmentStream } from '../accounts/events.js'
import { dashboardActivity } from '../dashboards/activity.js'
import { dashboardStream } from '../dashboards/events.js'
import { environmentActivity } from '../environments/activity.js'
import { flagActivity } from '../flags/activity.js'
import { flagStream } from '../flags/events.js'
import { subscriptionActivity } from '../subscriptions/activity.js'
import { subscriptionStream } from '../subscriptions/events.js'
import { surveyActivity } from '../surveys/activity.js'
import type { CollectionOf, ReadModelDocuments } from '../readstore/documents.js'
import { surveyStream } from '../surveys/events.js'

/** A management resource whose whole history is its own stream. */
export interface AuditedResource {
  readonly kind: 'dashboard' | 'subscription' | 'flag' | 'survey' | 'environment'
  /** The read model that holds its current state. */
  readonly collection: CollectionOf<ReadModelDocuments>
  readonly stream: (id: number) => string
  // The sources differ in state and event types; callers only fold and describe.
  readonly activity: ActivitySource<any, any>
}

export const AUDITED: Readonly<Record<AuditedResource['kind'], AuditedResource>> = {
  dashboard: { kind: 'dashboard', collection: 'dashboards', stream: dashboardStream, activity: dashboardActivity },
  subscription: { kind: 'subscription', collection: 'subscriptions', stream: subscriptionStream, activity: subscriptionActivity },
  flag: { kind: 'flag', collection: 'feature_flags', stream: flagStream, activity: flagActivity },
  survey: { kind: 'survey', collection: 'surveys', stream: surveyStream, activity: surveyActivity },
  environment: { kind: 'environment', collection: 'environments', stream: environmentStream, activity: environmentActivity },
}

/** The resource a stream name belongs to, e.g. `dashboard-12`. */
export const resourceOfStream = (stream: string): { resource: AuditedResource; id: number } | null => {
  const match = /^([a-z]+)-(\d+)$/.exec(stream)
  if (!match) return null
  const resource = Object.values(AUDITED).find((r) => r.stream(0) === `${match[1]}-0`)
  return resource ? { resource, id: Number(match[2]) } : null
}
