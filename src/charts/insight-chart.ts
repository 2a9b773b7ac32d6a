import type { ChartInput } from './chart-input.js'

type Json = Record<string, unknown>

const objectOr = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Json : null)

const stringOr = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

/** The query an insight draws: the source of an `InsightVizNode`, else the query itself. */
const sourceOf = (query: Json | null): Json | null =>
  query !== null && query['kind'] === 'InsightVizNode' ? objectOr(query['source']) : query

/** The display a source asks for: `trendsFilter.display`, `funnelsFilter.funnelVizType`, `stickinessFilter.display`. */
const displayOf = (source: Json | null): string | null => {
  if (source === null) return null
  switch (source['kind']) {
    case 'TrendsQuery':
      return stringOr(objectOr(source['trendsFilter'])?.['display'])
    case 'FunnelsQuery':
      return stringOr(objectOr(source['funnelsFilter'])?.['funnelVizType'])
    case 'StickinessQuery':
      return stringOr(objectOr(source['stickinessFilter'])?.['display'])
    default:
      return null
  }
}

const rangeOf = (value: unknown): ChartInput['dateRange'] => {
  const range = objectOr(value)
  const from = stringOr(range?.['date_from'])
  const to = stringOr(range?.['date_to'])
  return from !== null && to !== null ? { date_from: from, date_to: to } : null
}

/**
 * What a chart of an insight is drawn from, read off the insight as the insights API and the
 * shared view write it: its `name` (else `derived_name`), the kind and display of its `query`,
 * its `result`, `timezone` and `resolved_date_range`. Anything missing reads as absent.
 */
export const chartInputOf = (insight: Record<string, unknown>): ChartInput => {
  const source = sourceOf(objectOr(insight['query']))
  return {
    kind: stringOr(source?.['kind']),
    display: displayOf(source),
    name: stringOr(insight['name']) ?? stringOr(insight['derived_name']) ?? '',
    dateRange: rangeOf(insight['resolved_date_range']),
    timezone: stringOr(insight['timezone']) ?? 'UTC',
    result: insight['result'] ?? null,
  }
}
