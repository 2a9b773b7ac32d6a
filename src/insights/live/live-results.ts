import type { JsonObject } from '../../eventlog/port.js'
import { apiTime } from '../../http/timestamps.js'
import { deepFreeze } from '../../kernel/deep-freeze.js'
import { resultFieldsOf, sourceOf } from '../query/insight-results.js'
import { notComputedResults, type InsightResultFields, type InsightResults } from '../results.js'
import type { QueryNode } from '../schema/query-node.js'
import { liveKeyOf, type LiveAnswer, type LiveInsights } from './live-insights.js'

const time = (ms: number): string => apiTime(new Date(ms).toISOString())

/** Query nodes already parsed, by the insight query they were parsed from (kept unchanged while it lives); null for none. */
const nodes = new WeakMap<JsonObject, QueryNode | null>()

const nodeOf = (query: JsonObject): QueryNode | null => {
  let node = nodes.get(query)
  if (node === undefined) nodes.set(query, node = sourceOf(query))
  return node
}

/** The result fields of each live answer: the same frozen object for every read of one answer. */
const fields = new WeakMap<LiveAnswer, InsightResultFields>()

/**
 * Insights' results answered live where their query is: under any refresh mode, the live answer,
 * cached (`is_cached`), as fresh as the newest event it includes (`last_refresh`), computed by no
 * request. Any other insight, or one whose live build has not caught up yet, gets `computed`'s
 * results, with the build's progress as its `query_status` while it is built. Reads of one live
 * answer share one frozen object of fields, whose text a response writer keeps.
 */
export const liveInsightResults = (live: LiveInsights, computed: InsightResults): InsightResults => async (environment, insight, refresh) => {
  const query = insight.query as JsonObject | null
  let node: QueryNode | null
  try {
    node = query === null ? null : nodeOf(query)
  } catch {
    return computed(environment, insight, refresh)
  }
  if (node === null) return computed(environment, insight, refresh)
  const key = liveKeyOf(node, environment)
  const answer = await live.answer(environment, node, key)
  if (answer === null) {
    const results = await computed(environment, insight, refresh)
    const progress = live.progress(environment, node, key)
    if (progress === null || results.query_status !== null) return results
    return {
      ...results,
      query_status: {
        id: `live_${key}`, query_async: true, team_id: environment.id,
        complete: false, error: false, error_message: null, start_time: time(progress.startedAt), end_time: null,
        query_progress: { rows_read: progress.rowsRead, time_elapsed: Date.now() - progress.startedAt },
      },
    }
  }
  let known = fields.get(answer)
  if (known === undefined) {
    const fallback = await notComputedResults(environment, insight, refresh)
    known = deepFreeze({
      ...resultFieldsOf(answer.response, fallback),
      last_refresh: answer.lastEventAt === null ? null : time(answer.lastEventAt),
      is_cached: true,
      query_status: null,
      filters_hash: key,
    })
    fields.set(answer, known)
  }
  return known
}
