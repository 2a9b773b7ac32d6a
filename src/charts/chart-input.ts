/**
 * What one chart shows: an insight's result as the insights API returns it (`result`), with
 * what the picture names beside it. Every picture Hedgelog draws (shared pages, exports,
 * deliveries) starts from one of these.
 */
export interface ChartInput {
  /** The kind of the insight's source query: `TrendsQuery`, `FunnelsQuery`, `RetentionQuery`, `LifecycleQuery`, `StickinessQuery`; null when unknown. */
  readonly kind: string | null
  /** The display the query asks for (`trendsFilter.display`, or `funnelsFilter.funnelVizType` for funnels); null for the kind's default. */
  readonly display: string | null
  /** The insight's name (or derived name), drawn as the picture's title. */
  readonly name: string
  /** The range the result counts, as the insights API reports it; null when it has none. */
  readonly dateRange: { readonly date_from: string; readonly date_to: string } | null
  /** The environment's IANA timezone, drawn beside the range. */
  readonly timezone: string
  /** The insight's `result`: trends/stickiness/lifecycle series, funnel steps, retention cohorts; null when not computed. */
  readonly result: unknown
}

/** A picture's size in CSS pixels (PNG pixels at scale 1). */
export interface ChartSize {
  readonly width: number
  readonly height: number
}

/** The size of pictures in exports and deliveries when none is asked for. */
export const DEFAULT_CHART_SIZE: ChartSize = { width: 800, height: 450 }
