export type LifecycleStatus = 'new' | 'returning' | 'resurrecting' | 'dormant'
export const LIFECYCLE_ORDER: readonly LifecycleStatus[] = ['new', 'returning', 'resurrecting', 'dormant']

/**
 * One actor's statuses, from the periods they were active in (ascending, distinct) and the
 * period of their creation. A period is `new` when it is the creation period, `returning` when
 * the actor was active in the period just before, else `resurrecting`; the period after an
 * active one without activity is `dormant`. `previous` and `next` step one period.
 */
export const lifecycleStatuses = (
  active: readonly number[], createdPeriod: number, previous: (period: number) => number, next: (period: number) => number,
): [period: number, status: LifecycleStatus][] => {
  const out: [number, LifecycleStatus][] = []
  const isActive = new Set(active)
  active.forEach((period, i) => {
    if (period === createdPeriod) out.push([period, 'new'])
    else if (i > 0 && active[i - 1] === previous(period)) out.push([period, 'returning'])
    else out.push([period, 'resurrecting'])
    const after = next(period)
    if (!isActive.has(after)) out.push([after, 'dormant'])
  })
  return out
}
