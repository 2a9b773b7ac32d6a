import type { JsonObject } from '../../eventlog/port.js'
import type { Display } from '../schema/filters.js'
import type { TrendsQuery } from '../schema/insight-queries.js'
import type { ResolvedRange } from '../time/date-range.js'
import { isoDateTime } from '../time/labels.js'
import type { Zone } from '../time/zone.js'

const TOTAL_VALUE: ReadonlySet<Display> = new Set(['BoldNumber', 'ActionsPie', 'ActionsBarValue', 'ActionsTable', 'WorldMap', 'CalendarHeatmap', 'Progress'])

/** Displays that show one number per series over the whole range (`aggregated_value`). */
export const isTotalValue = (display: Display): boolean => TOTAL_VALUE.has(display)

/** The legacy `filter` each series echoes: the query in the classic filter's words, nulls left out. */
export const trendsFilterEcho = (query: TrendsQuery, range: ResolvedRange, zone: Zone): JsonObject => {
  const echo: JsonObject = {
    insight: 'TRENDS',
    properties: query.properties,
    filter_test_accounts: query.filterTestAccounts,
    date_to: isoDateTime(range.to, zone),
    date_from: isoDateTime(range.from, zone),
    entity_type: 'events',
    sampling_factor: query.samplingFactor,
    aggregation_group_type_index: query.aggregation_group_type_index,
    interval: query.interval,
    ...(query.trendsFilter ?? {}),
    ...(query.breakdownFilter ?? {}),
  }
  for (const key of Object.keys(echo)) if (echo[key] === null || echo[key] === undefined) delete echo[key]
  return echo
}
