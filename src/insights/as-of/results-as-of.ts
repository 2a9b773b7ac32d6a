import { environmentStream } from '../../accounts/events.js'
import { stateAsOf } from '../../eventlog/as-of.js'
import type { Cutoff } from '../../eventlog/cutoff.js'
import type { EventLog, JsonObject } from '../../eventlog/port.js'
import { evolveEnvironmentDocument } from '../../environments/document.js'
import type { EnvironmentEvent } from '../../environments/decider.js'
import { apiTime } from '../../http/timestamps.js'
import type { Environment } from '../../readstore/environment.js'
import { runQuery } from '../engine/run-query.js'
import { settingsOf } from '../live/live-insights.js'
import { cacheKeyOf } from '../query/cache-key.js'
import { resultFieldsOf, resultsOfSource } from '../query/insight-results.js'
import { queryEnvironmentFrom } from '../query/query-environment.js'
import { personReadsOf, usesTestAccounts } from '../query/query-service.js'
import { notComputedResults, type InsightResultFields } from '../results.js'
import type { Insight } from '../state.js'
import { historyAt, type EnvironmentHistory } from './history-at.js'

/** An insight's results as they stood at one moment; the insight is the definition to run (as it was then, or a tile's). */
export type ResultsAsOf = (insight: Pick<Insight, 'query' | 'filters'>) => Promise<InsightResultFields>

/** Where the settings of an environment as of a moment came from. */
export type SettingsFrom = 'history' | 'current'

/**
 * An environment as of the cutoff: folded from its own stream, as `?as_of=` answers it. When its
 * stream holds nothing then (an environment older than its history), the one given, as it is now.
 */
export const environmentAsOf = async (
  log: EventLog, environmentId: number, cutoff: Cutoff, current: Environment | null,
): Promise<{ environment: Environment; from: SettingsFrom }> => {
  const past = await stateAsOf<JsonObject | null, EnvironmentEvent>(log, environmentStream(environmentId), evolveEnvironmentDocument, null, cutoff)
  if (past) return { environment: past as Environment, from: 'history' }
  return { environment: current ?? { id: environmentId, organization: '', project_id: environmentId, api_token: '' }, from: 'current' }
}

/**
 * One insight's results over a history, as the query service would have computed them at its
 * moment: the engine run over the events, persons and groups then, with "now" at the moment and
 * the environment's settings then. Cached (`is_cached`), as fresh as the newest capture included
 * (`last_refresh`, the moment when there is none); a query the engine refuses gets no result and
 * a `query_status` saying why, as a live read does.
 */
export const resultsOver = async (
  history: EnvironmentHistory, environment: Environment, insight: Pick<Insight, 'query' | 'filters'>,
): Promise<InsightResultFields> =>
  resultsOfSource(insight, notComputedResults(environment, insight as Insight, 'force_cache'), async (node, fallback) => {
    const input = { environment: queryEnvironmentFrom(environment, history.groupTypes, usesTestAccounts(node)), now: history.now }
    const response = await runQuery(node, input, await history.source(personReadsOf(node))) as unknown as JsonObject
    return {
      ...resultFieldsOf(response, fallback),
      last_refresh: apiTime(new Date(history.lastEventAt ?? history.now).toISOString()),
      is_cached: true,
      query_status: null,
      filters_hash: cacheKeyOf(node, environment.id, settingsOf(environment)),
    }
  })

/**
 * Results as of the cutoff for any number of insights of one environment: the log is replayed
 * once, on the first insight asked for (never when none is), and every insight's query runs over
 * that replay. The replay reads the log from its start, so it costs a read of the whole log up to
 * the moment, and memory for the environment's events, persons and groups then.
 */
export const resultsAsOf = async (
  log: EventLog, environmentId: number, cutoff: Cutoff, current: Environment | null,
): Promise<{ results: ResultsAsOf; settingsFrom: SettingsFrom }> => {
  const { environment, from } = await environmentAsOf(log, environmentId, cutoff, current)
  let history: Promise<EnvironmentHistory> | null = null
  const results: ResultsAsOf = async (insight) => resultsOver(await (history ??= historyAt(log, environmentId, cutoff)), environment, insight)
  return { results, settingsFrom: from }
}
