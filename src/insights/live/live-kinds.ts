import type { QueryEnvironment } from '../engine/data.js'
import type { QueryNode } from '../schema/query-node.js'
import type { LiveQuery } from './live-query.js'
import { LiveFunnels } from './live-funnels.js'
import { LiveLifecycle } from './live-lifecycle.js'
import { LiveRetention } from './live-retention.js'
import { LiveStickiness } from './live-stickiness.js'
import { LiveTrends } from './live-trends.js'

/**
 * The live form of a query, or null when its kind has none or it reads what events do not fix
 * (the refusals of each kind). A query the engine refuses has none either: reads then get the
 * engine's refusal.
 */
export const liveQueryOf = (node: QueryNode, environment: QueryEnvironment, now: number): LiveQuery<unknown> | null => {
  try {
    switch (node.kind) {
      case 'TrendsQuery': return new LiveTrends(node, environment, now)
      case 'FunnelsQuery': return new LiveFunnels(node, environment, now)
      case 'RetentionQuery': return new LiveRetention(node, environment, now)
      case 'LifecycleQuery': return new LiveLifecycle(node, environment, now)
      case 'StickinessQuery': return new LiveStickiness(node, environment, now)
      default: return null
    }
  } catch {
    return null
  }
}
