/** The q-quantile of numbers, interpolating linearly between the two nearest ranks (0 for none). */
export const quantile = (values: readonly number[], q: number): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * q
  const low = Math.floor(position)
  const high = Math.ceil(position)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low)
}

export type Statistic = 'sum' | 'avg' | 'min' | 'max' | 'median' | 'p75' | 'p90' | 'p95' | 'p99'

const QUANTILES: Readonly<Record<string, number>> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 }

/** A statistic over numbers; every statistic of no numbers is 0, as PostHog fills empty buckets. */
export const statistic = (values: readonly number[], which: Statistic): number => {
  if (values.length === 0) return 0
  switch (which) {
    case 'sum': return values.reduce((a, b) => a + b, 0)
    case 'avg': return values.reduce((a, b) => a + b, 0) / values.length
    case 'min': return values.reduce((a, b) => Math.min(a, b))
    case 'max': return values.reduce((a, b) => Math.max(a, b))
    default: return quantile(values, QUANTILES[which]!)
  }
}
