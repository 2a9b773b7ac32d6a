const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

export const daysInMonth = (year: number, month: number): number => (month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1]!)

interface NamedDay { readonly year: number; readonly month: number; readonly day: number }

const ISO_DAY = /^([+-]\d{6}|\d{4})-(\d{1,2})-(\d{1,2})(?!\d)/
const YEAR_FIRST_SLASHES = /^(\d{4})\/(\d{1,2})\/(\d{1,2})(?!\d)/
const MONTH_FIRST_SLASHES = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?!\d)/
const DAY_BEFORE_MONTH = /(?:^|[^\d])(\d{1,2})\s*-?\s*(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*-?,?\s*(\d{4})(?!\d)/i
const MONTH_BEFORE_DAY = /(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?!\d)/i

const monthNumber = (name: string): number => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1

/** The calendar day a date text names, in the forms JavaScript's date parser reads; null for others. */
const namedDay = (text: string): NamedDay | null => {
  let m = ISO_DAY.exec(text) ?? YEAR_FIRST_SLASHES.exec(text)
  if (m) return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }
  m = MONTH_FIRST_SLASHES.exec(text)
  if (m) return { year: Number(m[3]), month: Number(m[1]), day: Number(m[2]) }
  m = DAY_BEFORE_MONTH.exec(text)
  if (m) return { year: Number(m[3]), month: monthNumber(m[2]!), day: Number(m[1]) }
  m = MONTH_BEFORE_DAY.exec(text)
  if (m) return { year: Number(m[3]), month: monthNumber(m[1]!), day: Number(m[2]) }
  return null
}

/**
 * Whether a date text names a day its month does not have (`2024-02-30`, `31 Apr 2024`,
 * `2023-02-29`). JavaScript's parser reads days up to 31 in every month and rolls the excess
 * into the next one, so such a text would otherwise pass for a real date.
 */
export const namesMissingDay = (text: string): boolean => {
  const named = namedDay(text)
  return named !== null && named.month >= 1 && named.month <= 12 && named.day > daysInMonth(named.year, named.month)
}
