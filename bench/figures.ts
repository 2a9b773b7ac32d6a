/** One measured figure; `target` makes it a pass/fail line of the final table. */
export interface Figure {
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly target?: Target
  /** What else a reader needs: connections, failures, the raw rates behind a ratio. */
  readonly note?: string
  /** Shown instead of the number (a yes/no figure such as a digest comparison). */
  readonly display?: string
}

/** A bound on a figure: at least (more is better) or at most (less is better). */
export interface Target {
  readonly atLeast?: number
  readonly atMost?: number
  /** Shown instead of the bound. */
  readonly display?: string
}

export const met = (figure: Figure): boolean => {
  const { target, value } = figure
  if (!target) return true
  if (!Number.isFinite(value)) return false
  return (target.atLeast === undefined || value >= target.atLeast) && (target.atMost === undefined || value <= target.atMost)
}

const valueText = (figure: Figure): string => figure.display ?? `${number(figure.value)} ${figure.unit}`

const number = (value: number): string => {
  if (Number.isNaN(value)) return 'n/a'
  if (!Number.isFinite(value)) return '∞'
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(Math.abs(value) >= 10 ? 1 : 2)
}

export const targetText = (figure: Figure): string => {
  const { target, unit } = figure
  if (!target) return ''
  if (target.display !== undefined) return target.display
  const parts = [
    ...(target.atLeast !== undefined ? [`≥ ${number(target.atLeast)}`] : []),
    ...(target.atMost !== undefined ? [`≤ ${number(target.atMost)}`] : []),
  ]
  return `${parts.join(' and ')} ${unit}`
}

/** One line as a figure is measured. */
export const line = (figure: Figure): string => {
  const verdict = figure.target ? `  [target ${targetText(figure)}: ${met(figure) ? 'met' : 'MISSED'}]` : ''
  const note = figure.note ? `  (${figure.note})` : ''
  return `${figure.name.padEnd(64)} ${valueText(figure).padStart(18)}${verdict}${note}`
}

/** The closing table: every figure that has a target, its value, the target, and whether it was met. */
export const table = (figures: readonly Figure[]): string => {
  const rows = figures.filter((figure) => figure.target).map((figure) => [
    figure.name, valueText(figure), targetText(figure), met(figure) ? 'met' : 'MISSED',
  ])
  const header = ['figure', 'value', 'target', 'met']
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)))
  const format = (row: readonly string[]): string => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`
  return [format(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(format)].join('\n')
}
