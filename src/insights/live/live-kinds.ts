import type { QueryEnvironment } from '../engine/data.js'
import { funnelWindow } from '../funnels/funnel-subjects.js'
import { funnelRun } from '../funnels/run-funnels.js'
import { spanning } from '../engine/passes.js'
import { retentionWindow } from '../retention/retention-cohorts.js'
import { planRetention, retentionRangeAt } from '../retention/retention-plan.js'
import type { QueryNode } from '../schema/query-node.js'
import { stickinessRun, stickinessWindow } from '../stickiness/run-stickiness.js'
import { trendsRun, trendsWindow } from '../trends/run-trends.js'
import type { LiveQuery } from './live-query.js'
import { LiveFunnels } from './live-funnels.js'
import { LiveLifecycle } from './live-lifecycle.js'
import { LiveRetention } from './live-retention.js'
import { LiveStickiness } from './live-stickiness.js'
import { LiveTrends } from './live-trends.js'
import { lastingBounds, WindowedLive, type WindowAt } from './windowed.js'

/**
 * The window each kind's engine reads at a moment, for the kinds whose answers read only the
 * events inside it. A range from the first event (`date_from: "all"`) has none, since every
 * event may move its start; nor has lifecycle: a merged person's creation is the earliest carried by
 * any of its events, read or not.
 */
const windowAt = (node: QueryNode, environment: QueryEnvironment): WindowAt | null => {
  if ((node.kind === 'TrendsQuery' || node.kind === 'FunnelsQuery' || node.kind === 'RetentionQuery' || node.kind === 'StickinessQuery')
    && node.dateRange?.date_from === 'all') return null
  switch (node.kind) {
    case 'TrendsQuery': return (now) => trendsWindow(trendsRun(node, { environment, now }, null))
    case 'FunnelsQuery': return (now) => funnelWindow(funnelRun(node, { environment, now }, null).periods.current)
    case 'RetentionQuery': return (now) => {
      const plan = planRetention(node, { environment, now })
      return retentionWindow(plan, retentionRangeAt(node, plan, { environment, now }, null))
    }
    case 'StickinessQuery': return (now) => spanning(stickinessRun(node, { environment, now }, null).periods.map(([range]) => stickinessWindow(range)))
    default: return null
  }
}

const liveOf = (node: QueryNode, environment: QueryEnvironment, now: number): LiveQuery<unknown> | null => {
  switch (node.kind) {
    case 'TrendsQuery': return new LiveTrends(node, environment, now)
    case 'FunnelsQuery': return new LiveFunnels(node, environment, now)
    case 'RetentionQuery': return new LiveRetention(node, environment, now)
    case 'LifecycleQuery': return new LiveLifecycle(node, environment, now)
    case 'StickinessQuery': return new LiveStickiness(node, environment, now)
    default: return null
  }
}

/**
 * The live form of a query, or null when its kind has none or it reads what events do not fix
 * (the refusals of each kind). A query the engine refuses has none either: reads then get the
 * engine's refusal. Events outside every window the query will read from `now` on are not kept
 * (`WindowedLive`).
 */
export const liveQueryOf = (node: QueryNode, environment: QueryEnvironment, now: number): LiveQuery<unknown> | null => {
  try {
    const live = liveOf(node, environment, now)
    if (live === null) return null
    const window = windowAt(node, environment)
    return window === null ? live : new WindowedLive(live, lastingBounds(window, now))
  } catch {
    return null
  }
}
