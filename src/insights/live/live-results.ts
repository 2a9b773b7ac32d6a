import type { JsonObject } from '../../eventlog/port.js'
import { apiTime } from '../../http/timestamps.js'
import { cacheKeyOf } from '../query/cache-key.js'
import { resultFieldsOf, sourceOf } from '../query/insight-results.js'
import { notComputedResults, type InsightResults } from '../results.js'
import type { QueryNode } from '../schema/query-node.js'
import { settingsOf, type LiveInsights } from './live-insights.js'

const time = (ms: number): string => apiTime(new Date(ms).toISOString())

/**
 * Insights' results answered live where their query is: under any refresh mode, the live answer,
 * cached (`is_cached`), as fresh as the newest event it includes (`last_refresh`), computed by no
 * request. Any other insight, or one whose live build has not caught up yet, gets `computed`'s
 * results, with the build's progress as its `query_status` while it is built.
 */
export const liveInsightResults = (live: LiveInsights, computed: InsightResults): InsightResults => async (environment, insight, refresh) => {
  let node: QueryNode | null
  try {
    node = sourceOf(insight.query as JsonObject | null)
  } catch {
    return computed(environment, insight, refresh)
  }
  if (node === null) return computed(environment, insight, refresh)
  const answer = await live.answer(environment, node)
  if (answer === null) {
    const fields = await computed(environment, insight, refresh)
    const progress = live.progress(environment, node)
    if (progress === null || fields.query_status !== null) return fields
    return {
      ...fields,
      query_status: {
        id: `live_${cacheKeyOf(node, environment.id, settingsOf(environment))}`, query_async: true, team_id: environment.id,
        complete: false, error: false, error_message: null, start_time: time(progress.startedAt), end_time: null,
        query_progress: { rows_read: progress.rowsRead, time_elapsed: Date.now() - progress.startedAt },
      },
    }
  }
  const fallback = await notComputedResults(environment, insight, refresh)
  return {
    ...resultFieldsOf(answer.response, fallback),
    last_refresh: answer.lastEventAt === null ? null : time(answer.lastEventAt),
    is_cached: true,
    query_status: null,
    filters_hash: cacheKeyOf(node, environment.id, settingsOf(environment)),
  }
}
