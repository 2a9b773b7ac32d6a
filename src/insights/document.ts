import type { JsonObject } from '../eventlog/port.js'
import type { Insight } from './state.js'
import { ownValue } from '../kernel/own-value.js'

/** What `?insight=` filters the list by. */
export type InsightKind = 'TRENDS' | 'FUNNELS' | 'RETENTION' | 'PATHS' | 'STICKINESS' | 'LIFECYCLE' | 'JSON' | 'SQL'

const VIZ_SOURCES: Readonly<Record<string, InsightKind>> = {
  TrendsQuery: 'TRENDS', FunnelsQuery: 'FUNNELS', RetentionQuery: 'RETENTION', PathsQuery: 'PATHS',
  StickinessQuery: 'STICKINESS', LifecycleQuery: 'LIFECYCLE',
}

const kindOf = (node: unknown): string | null =>
  node !== null && typeof node === 'object' && !Array.isArray(node) && typeof (node as JsonObject)['kind'] === 'string'
    ? (node as JsonObject)['kind'] as string
    : null

/**
 * The kind of analysis an insight is, as PostHog's list filter names it: an `InsightVizNode` by
 * its source's kind, SQL for a HogQL source, JSON for any other query; an insight without a
 * query by its legacy `filters.insight` (TRENDS when it has none).
 */
export const insightKind = (query: JsonObject | null, filters: JsonObject): InsightKind | null => {
  if (query === null) {
    const legacy = typeof filters['insight'] === 'string' ? filters['insight'].toUpperCase() : 'TRENDS'
    return (Object.values(VIZ_SOURCES) as string[]).includes(legacy) ? legacy as InsightKind : null
  }
  const source = kindOf(query['source'])
  if (query['kind'] === 'InsightVizNode') return source === null ? null : ownValue(VIZ_SOURCES, source) ?? null
  if (query['kind'] === 'DataVisualizationNode' || source === 'HogQLQuery') return 'SQL'
  return 'JSON'
}

/** An insight's read model: the insight, and its kind for the list's filter. */
export type InsightDocument = Insight & { kind: InsightKind | null }

declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    insights: InsightDocument
  }
}
