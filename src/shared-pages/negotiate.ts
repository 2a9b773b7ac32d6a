/** One media range of an `Accept` header: `type/subtype` (either may be `*`) and its quality. */
interface MediaRange {
  readonly type: string
  readonly subtype: string
  readonly q: number
}

const parseRange = (part: string): MediaRange | null => {
  const [media = '', ...parameters] = part.split(';')
  const [type, subtype, extra] = media.trim().toLowerCase().split('/')
  if (!type || !subtype || extra !== undefined) return null
  let q = 1
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=')
    if (name.trim().toLowerCase() !== 'q') continue
    const parsed = Number(value.trim())
    q = Number.isFinite(parsed) && value.trim() !== '' ? Math.min(Math.max(parsed, 0), 1) : 0
  }
  return { type, subtype, q }
}

/** The media ranges of an `Accept` header; unreadable parts are left out. */
export const mediaRanges = (accept: string): MediaRange[] => {
  const ranges: MediaRange[] = []
  for (const part of accept.split(',')) {
    const range = parseRange(part)
    if (range !== null) ranges.push(range)
  }
  return ranges
}

/**
 * How much a client wants `type/subtype` (RFC 9110 §12.5.1): the quality of the most specific
 * range that matches it (`text/html` before `text/*` before `*\/*`), 0 when none does.
 */
export const qualityOf = (ranges: readonly MediaRange[], type: string, subtype: string): number => {
  let best = -1
  let quality = 0
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 2
      : range.type === type && range.subtype === '*' ? 1
        : range.type === '*' && range.subtype === '*' ? 0 : -1
    if (specificity > best) {
      best = specificity
      quality = range.q
    }
  }
  return quality
}

/**
 * Whether a request's `Accept` header prefers an HTML page to JSON: only when it rates
 * `text/html` strictly above `application/json`. No header, `*\/*` alone, or a tie keep JSON,
 * so API clients see what they always saw; browsers name `text/html` first and everything else
 * at a lower quality, and get the page.
 */
export const prefersHtml = (accept: string | readonly string[] | undefined): boolean => {
  if (accept === undefined) return false
  const ranges = mediaRanges(typeof accept === 'string' ? accept : accept.join(','))
  return qualityOf(ranges, 'text', 'html') > qualityOf(ranges, 'application', 'json')
}
