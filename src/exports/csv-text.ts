/**
 * CSV as PostHog writes its exports (Python's `csv` writer under Django REST framework's CSV
 * renderer): rows end with CRLF, a field is quoted only when it holds a comma, a quote, CR or LF
 * (quotes doubled inside), as RFC 4180 has it. PostHog does not neutralise cells that start with
 * `=`, `+`, `-` or `@`, and neither does this: a cell is written as the data has it.
 */
import { forEachSliced, SLICE_MS, yieldToLoop } from '../kernel/slices.js'

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

type Flat = Map<string, unknown>

/** Flattened column names in the order first seen, grouped by what precedes their first dot. */
class ColumnGroups {
  private readonly groups = new Map<string, string[]>()
  private readonly seen = new Set<string>()

  add(row: Flat): void {
    for (const name of row.keys()) {
      if (this.seen.has(name)) continue
      this.seen.add(name)
      const group = name.split('.')[0]!
      const members = this.groups.get(group)
      if (members) members.push(name)
      else this.groups.set(group, [name])
    }
  }

  /**
   * The table's columns: `header` when given (a name that is the prefix of flattened columns
   * stands for them all); otherwise the first row's keys when none of its values is nested, else
   * every flattened column.
   */
  columns(first: Readonly<Record<string, unknown>> | undefined, header: readonly string[] | null): string[] {
    if (header !== null && header.length > 0) {
      return header.flatMap((name) => (this.seen.has(name) || !this.groups.has(name) ? [name] : this.groups.get(name)!))
    }
    if (first !== undefined && !Object.values(first).some(isNested)) return Object.keys(first)
    return [...this.groups.values()].flat()
  }
}

const cells = (row: Flat, columns: readonly string[]): unknown[] => columns.map((name) => row.get(name) ?? null)

/**
 * Rows as a table, header first (see `ColumnGroups.columns`). A row without a column's value
 * leaves its cell empty.
 */
export function* tablize(rows: readonly Readonly<Record<string, unknown>>[], header: readonly string[] | null): Generator<unknown[]> {
  const flat = rows.map(flattenRow)
  const groups = new ColumnGroups()
  for (const row of flat) groups.add(row)
  const columns = groups.columns(rows[0], header)
  yield columns.map(headerLabel)
  for (const row of flat) yield cells(row, columns)
}

/**
 * The CSV of the rows made of `items`, as `csvText(tablize(rows, header))` writes it, made a
 * slice at a time with the event loop handed back between slices: an export may hold 300,000
 * rows, far more than one request may hold the loop for.
 */
export const csvBytes = async (
  items: readonly unknown[], row: (item: unknown, index: number) => Readonly<Record<string, unknown>>, header: readonly string[] | null,
): Promise<Buffer> => {
  const flat: Flat[] = new Array<Flat>(items.length)
  const groups = new ColumnGroups()
  let first: Readonly<Record<string, unknown>> | undefined
  await forEachSliced(items, (item, index) => {
    const made = row(item, index)
    if (index === 0) first = made
    const flattened = flattenRow(made)
    groups.add(flattened)
    flat[index] = flattened
  })
  const columns = groups.columns(first, header)
  const pieces = [Buffer.from(line(columns.map(headerLabel)), 'utf8')]
  let text = ''
  let sliceStart = performance.now()
  for (const one of flat) {
    text += line(cells(one, columns))
    if (performance.now() - sliceStart > SLICE_MS) {
      pieces.push(Buffer.from(text, 'utf8'))
      text = ''
      await yieldToLoop()
      sliceStart = performance.now()
    }
  }
  pieces.push(Buffer.from(text, 'utf8'))
  return Buffer.concat(pieces)
}
