import type { FastifyRequest } from 'fastify'
import { z } from 'zod'
import { boundedCache } from '../kernel/bounded-cache.js'

export const DEFAULT_PAGE_SIZE = 100

export interface Page {
  readonly limit: number
  readonly offset: number
}

const wholeNumber = (value: unknown): number | null => {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return null
  const number = Number(value)
  return Number.isSafeInteger(number) ? number : null
}

/** PostHog's limit/offset: a limit that is not a positive integer means 100; a bad offset means 0. */
export const pageOf = (query: unknown): Page => {
  const given = query !== null && typeof query === 'object' && !Array.isArray(query) ? query as { limit?: unknown; offset?: unknown } : {}
  const limit = wholeNumber(given.limit)
  const offset = wholeNumber(given.offset)
  return { limit: limit !== null && limit > 0 ? limit : DEFAULT_PAGE_SIZE, offset: offset ?? 0 }
}

/** Where the request's URL is resolved from: its scheme, as forwarded, and its Host. */
const baseOf = (request: FastifyRequest): string => {
  const forwardedProto = request.headers['x-forwarded-proto']
  const protocol = typeof forwardedProto === 'string' ? forwardedProto.split(',')[0]!.trim() : request.protocol
  return `${protocol}://${request.host}`
}

export const absoluteUrl = (request: FastifyRequest): URL => new URL(request.url, baseOf(request))

/** Bases a path has been resolved on; the client chooses its Host, so only a few are remembered. */
const REMEMBERED_BASES = 64
const resolvable = boundedCache<string, true>({ max: REMEMBERED_BASES })

/** A path of its own (`/…`, neither `//…` nor `/\…`, which name a host) resolves on any base another path resolved on. */
const ownPath = (url: string): boolean => url.startsWith('/') && url[1] !== '/' && url[1] !== '\\'

/** Throws where `absoluteUrl` would (a Host no URL can have), building the URL only for a base not seen yet. */
const checkResolvable = (request: FastifyRequest): void => {
  const base = baseOf(request)
  if (ownPath(request.url) && resolvable.has(base)) return
  absoluteUrl(request)
  if (!ownPath(request.url)) return
  resolvable.set(base, true)
}

/** The request's URL with its query rebuilt, parameters sorted as Django REST framework sorts them. */
const withQuery = (url: URL, changes: Record<string, number | null>): string => {
  const params = new URLSearchParams(url.search)
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name)
    else params.set(name, String(value))
  }
  params.sort()
  const search = params.toString()
  return `${url.origin}${url.pathname}${search ? `?${search}` : ''}`
}

export interface Paginated<T> {
  count: number
  next: string | null
  previous: string | null
  results: T[]
}

/** The schema of the limit/offset envelope around items of `item`; made once per resource, as each schema is compiled once. */
export const paginatedResponse = <T extends z.ZodType>(item: T) => z.object({
  count: z.number(),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  results: z.array(item),
})

/** The limit/offset envelope with absolute `next` and `previous` links. */
export const paginated = <T>(request: FastifyRequest, page: Page, count: number, results: T[]): Paginated<T> => {
  const { limit, offset } = page
  // A page with nothing before or after it links nowhere: its URL is only checked, not built.
  if (offset <= 0 && offset + limit >= count) {
    checkResolvable(request)
    return { count, next: null, previous: null, results }
  }
  const url = absoluteUrl(request)
  const next = offset + limit < count ? withQuery(url, { limit, offset: offset + limit }) : null
  const previous = offset <= 0 ? null
    : offset - limit <= 0 ? withQuery(url, { limit, offset: null })
      : withQuery(url, { limit, offset: offset - limit })
  return { count, next, previous, results }
}
