/** A time as whole UTC seconds (`YYYY-MM-DDTHH:MM:SS`) and six digits of fraction; null when unreadable. */
const utcParts = (iso: string): { seconds: string; micros: string } | null => {
  const exact = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(?:Z|[+-]00:00)$/.exec(iso)
  if (exact) return { seconds: exact[1]!, micros: (exact[2] ?? '').padEnd(6, '0') }
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) return null
  const text = new Date(ms).toISOString()
  return { seconds: text.slice(0, 19), micros: `${text.slice(20, 23)}000` }
}

const format = (iso: string, zone: string): string => {
  const parts = utcParts(iso)
  if (!parts) return iso
  return /^0*$/.test(parts.micros) ? `${parts.seconds}${zone}` : `${parts.seconds}.${parts.micros}${zone}`
}

/**
 * A stored time as PostHog's API prints it (Django REST framework): UTC with `Z`, and
 * microseconds only when the fraction is not zero (`2022-01-01T00:00:00Z`, `…12.123000Z`).
 */
export const apiTime = <T extends string | null | undefined>(iso: T): T =>
  (typeof iso === 'string' ? format(iso, 'Z') : iso) as T

/** As Python's `isoformat()` prints a UTC time, which PostHog's events API uses. */
export const pythonIsoFormat = (iso: string): string => format(iso, '+00:00')
