/** Splits a stored ISO time into whole seconds (`YYYY-MM-DDTHH:MM:SS`) and six digits of fraction. */
const parts = (iso: string): { seconds: string; micros: string } => {
  const ms = Date.parse(iso)
  const text = Number.isNaN(ms) ? iso : new Date(ms).toISOString()
  return { seconds: text.slice(0, 19), micros: `${text.slice(20, 23)}000` }
}

/** As Django REST framework prints a time: UTC with `Z`, microseconds only when there are any. */
export const drfDateTime = (iso: string): string => {
  const { seconds, micros } = parts(iso)
  return micros === '000000' ? `${seconds}Z` : `${seconds}.${micros}Z`
}

/** As Python's `isoformat()` prints a UTC time, which PostHog's events API uses. */
export const pythonIsoFormat = (iso: string): string => {
  const { seconds, micros } = parts(iso)
  return micros === '000000' ? `${seconds}+00:00` : `${seconds}.${micros}+00:00`
}
