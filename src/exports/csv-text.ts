/**
 * CSV as PostHog writes its exports (Python's `csv` writer under Django REST framework's CSV
 * renderer): rows end with CRLF, a field is quoted only when it holds a comma, a quote, CR or LF
 * (quotes doubled inside), as RFC 4180 has it. PostHog does not neutralise cells that start with
 * `=`, `+`, `-` or `@`, and neither does this: a cell is written as the data has it.
 */

/** A cell as Python's `csv` writes it: None empty, booleans `True`/`False`, objects as JSON. */
const cellText = (value: unknown): string => {
  if (value === null || value === undefined) return ''
  if (typeof value === 'boolean') return value ? 'True' : 'False'
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  return JSON.stringify(value)
}

const NEEDS_QUOTES = /[",\r\n]/

const field = (text: string): string => (NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text)

/** One line; a row of one empty field is written `""`, as Python does, so it is not read as a blank line. */
const line = (row: readonly unknown[]): string => {
  const texts = row.map(cellText)
  if (texts.length === 1 && texts[0] === '') return '""\r\n'
  return `${texts.map(field).join(',')}\r\n`
}

/** The table as CSV text, header row first. */
export const csvText = (table: Iterable<readonly unknown[]>): string => {
  let text = ''
  for (const row of table) text += line(row)
  return text
}

/**
 * A row flattened as the CSV renderer flattens it: a nested object's members become columns
 * `key.member`, a list's items `key.0`, `key.1`, … (recursively); empty objects and lists give no column.
 */
export const flattenRow = (row: Readonly<Record<string, unknown>>): Map<string, unknown> => {
  const flat = new Map<string, unknown>()
  const visit = (value: unknown, name: string): void => {
    if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${name}.${index}`))
    else if (value !== null && typeof value === 'object') for (const [key, inner] of Object.entries(value)) visit(inner, `${name}.${key}`)
    else flat.set(name, value)
  }
  for (const [key, value] of Object.entries(row)) visit(value, key)
  return flat
}

const isNested = (value: unknown): boolean => value !== null && typeof value === 'object'

/** A column name as the header shows it: a HogQL column's comment (`count() -- Total` reads `Total`). */
const headerLabel = (name: string): string => {
  if (!name.includes('--')) return name
  return name.split('--').at(-1)!.trim() || name
}

/**
 * Rows as a table. The columns are `header` when given (a name that is the prefix of flattened
 * columns stands for them all); otherwise the first row's keys when none of its values is nested,
 * else every flattened column in the order first seen, grouped by what precedes their first dot.
 * A row without a column's value leaves its cell empty.
 */
export function* tablize(rows: readonly Readonly<Record<string, unknown>>[], header: readonly string[] | null): Generator<unknown[]> {
  const flat = rows.map(flattenRow)
  const groups = new Map<string, string[]>()
  for (const row of flat) {
    for (const name of row.keys()) {
      const group = name.split('.')[0]!
      const members = groups.get(group)
      if (!members) groups.set(group, [name])
      else if (!members.includes(name)) members.push(name)
    }
  }
  const ordered = [...groups.values()].flat()
  const known = new Set(ordered)
  let columns: string[]
  if (header !== null && header.length > 0) {
    columns = header.flatMap((name) => (known.has(name) || !groups.has(name) ? [name] : groups.get(name)!))
  } else if (rows.length > 0 && !Object.values(rows[0]!).some(isNested)) {
    columns = Object.keys(rows[0]!)
  } else {
    columns = ordered
  }
  yield columns.map(headerLabel)
  for (const row of flat) yield columns.map((name) => row.get(name) ?? null)
}
