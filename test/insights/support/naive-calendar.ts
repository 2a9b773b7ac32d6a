/**
 * Dates for the brute-force evaluator, written without the engine's time code: events become
 * local wall-clock text through Intl, and calendar steps are done on plain `YYYY-MM-DD` text.
 */

const formatters = new Map<string, Intl.DateTimeFormat>()

/** The wall clock of an instant in a zone as `YYYY-MM-DD HH:MM:SS.mmm`. */
export const localText = (instant: number, timezone: string): string => {
  let format = formatters.get(timezone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
    formatters.set(timezone, format)
  }
  const parts = Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]))
  const ms = String(((instant % 1000) + 1000) % 1000).padStart(3, '0')
  return `${parts['year']}-${parts['month']}-${parts['day']} ${parts['hour']}:${parts['minute']}:${parts['second']}.${ms}`
}

const toDate = (day: string): Date => new Date(`${day.slice(0, 10)}T00:00:00Z`)
const fromDate = (date: Date): string => date.toISOString().slice(0, 10)

export const addDays = (day: string, n: number): string => {
  const date = toDate(day)
  date.setUTCDate(date.getUTCDate() + n)
  return fromDate(date)
}

export const addMonths = (day: string, n: number): string => {
  const date = toDate(day)
  date.setUTCDate(1)
  date.setUTCMonth(date.getUTCMonth() + n)
  return fromDate(date)
}

export const weekday = (day: string): number => toDate(day).getUTCDay()

export const weekStart = (day: string, start: 0 | 1): string => addDays(day, -((weekday(day) - start + 7) % 7))
export const monthStart = (day: string): string => `${day.slice(0, 7)}-01`

export const daysBetween = (a: string, b: string): number => Math.round((toDate(b).getTime() - toDate(a).getTime()) / 86_400_000)
