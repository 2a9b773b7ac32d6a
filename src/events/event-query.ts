import type { ReadModels } from '../readstore/read-models.js'
import type { EventRecord } from './record.js'
import type { Page } from '../http/pagination.js'

export interface EventFilters {
  readonly event?: string
  readonly distinctId?: string
  /** Only events strictly after this ISO time. */
  readonly after?: string
  /** Only events strictly before this ISO time. */
  readonly before?: string
}

type Where = Record<string, string | number>
const NEWEST_FIRST = [['timestamp', 'desc']] as const

/**
 * The first position, in newest-first order, whose event satisfies `past` (which holds from
 * some position on). The store filters by equality only, so time bounds are found by bisection.
 */
const firstPosition = async (models: ReadModels, where: Where, count: number, past: (timestamp: string) => boolean): Promise<number> => {
  let low = 0
  let high = count
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    const [event] = await models.find('events', { where, orderBy: NEWEST_FIRST, limit: 1, offset: middle })
    if (event && past(event.timestamp)) high = middle
    else low = middle + 1
  }
  return low
}

/** One page of an environment's events, newest first, with the number matching the filters. */
export const findEvents = async (
  models: ReadModels, environmentId: number, filters: EventFilters, page: Page,
): Promise<{ count: number; results: EventRecord[] }> => {
  const where: Where = { environment_id: environmentId }
  if (filters.event !== undefined) where['event'] = filters.event
  if (filters.distinctId !== undefined) where['distinct_id'] = filters.distinctId
  const total = await models.count('events', where)
  const { before, after } = filters
  const start = before === undefined ? 0 : await firstPosition(models, where, total, (timestamp) => timestamp < before)
  const end = after === undefined ? total : await firstPosition(models, where, total, (timestamp) => timestamp <= after)
  const count = Math.max(0, end - start)
  const limit = Math.min(page.limit, count - page.offset)
  if (limit <= 0) return { count, results: [] }
  const results = await models.find('events', { where, orderBy: NEWEST_FIRST, limit, offset: start + page.offset })
  return { count, results }
}
