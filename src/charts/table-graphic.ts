import type { ChartSize } from './chart-input.js'
import { FONT_FAMILY, measureText } from './fonts.js'
import { bodyOf } from './frame.js'
import { LINE_COLOR, MUTED_TEXT_COLOR, TEXT_COLOR } from './palette.js'

/** What a cell is painted with besides its text. */
export interface CellPaint {
  readonly fill: string
  readonly text: string
}

/** A table drawn with rectangles and text: a header row, then rows of cells. */
export interface TableSpec {
  readonly columns: readonly string[]
  readonly rows: readonly (readonly string[])[]
  /** A small square of this colour before a row's first cell (a series' colour); none when null. */
  readonly swatch?: (row: number) => string | null
  /** The background of a cell, and the colour of its text; plain when null. */
  readonly paint?: (row: number, column: number) => CellPaint | null
}

const MAX_ROW_HEIGHT = 26
const MIN_ROW_HEIGHT = 14
/** The width of `text` at one pixel of the bundled font. */
const emsOf = (text: string): number => measureText(text, '1px').width

/**
 * The ECharts `graphic` elements of a table filling the frame's body. Rows that do not fit are
 * left out; the first column is as wide as its text needs (up to 40 % of the width), the others
 * share the rest; text too long for its cell ends with an ellipsis.
 */
export const tableElements = (spec: TableSpec, size: ChartSize): Record<string, unknown>[] => {
  const body = bodyOf(size, false)
  const rowHeight = Math.max(MIN_ROW_HEIGHT, Math.min(MAX_ROW_HEIGHT, Math.floor(body.height / (spec.rows.length + 1))))
  const shownRows = spec.rows.slice(0, Math.max(0, Math.floor(body.height / rowHeight) - 1))
  const rowFont = Math.max(9, Math.min(12, Math.floor(rowHeight * 0.5)))
  const swatchSpace = spec.swatch ? rowFont + 6 : 0
  const firstNeeds = Math.max(...[spec.columns, ...shownRows].map((row) => emsOf(row[0] ?? ''))) * rowFont * 1.1 + swatchSpace + 12
  const others = spec.columns.length - 1
  const first = others === 0 ? body.width : Math.min(body.width * 0.4, Math.max(60, firstNeeds))
  const rest = others === 0 ? 0 : (body.width - first) / others
  // Numbers are made smaller (down to 8 px) rather than cut short when their columns are narrow.
  const widest = Math.max(0.5, ...[spec.columns, ...shownRows].flatMap((row) => row.slice(1).map(emsOf)))
  const fontSize = others === 0 ? rowFont : Math.max(8, Math.min(rowFont, Math.floor((rest - 12) / (widest * 1.1))))
  const left = (column: number) => body.left + (column === 0 ? 0 : first + (column - 1) * rest)
  const width = (column: number) => (column === 0 ? first : rest)

  const elements: Record<string, unknown>[] = []
  const text = (value: string, column: number, y: number, color: string, bold: boolean) => {
    const inset = column === 0 ? 6 + swatchSpace : 6
    elements.push({
      type: 'text',
      x: column === 0 ? left(column) + inset : left(column) + width(column) - 6,
      y: y + rowHeight / 2,
      silent: true,
      style: {
        text: value,
        fill: color,
        fontFamily: FONT_FAMILY,
        fontSize,
        fontWeight: bold ? 'bold' : 'normal',
        align: column === 0 ? 'left' : 'right',
        verticalAlign: 'middle',
        width: Math.max(1, width(column) - inset - 6),
        overflow: 'truncate',
      },
    })
  }
  spec.columns.forEach((column, i) => text(column, i, body.top, MUTED_TEXT_COLOR, true))
  elements.push({ type: 'line', silent: true, shape: { x1: body.left, y1: body.top + rowHeight, x2: body.left + body.width, y2: body.top + rowHeight }, style: { stroke: LINE_COLOR, lineWidth: 1 } })
  shownRows.forEach((row, r) => {
    const y = body.top + (r + 1) * rowHeight
    row.forEach((cell, c) => {
      const paint = spec.paint?.(r, c) ?? null
      if (paint !== null) elements.push({ type: 'rect', silent: true, shape: { x: left(c) + 1, y: y + 1, width: width(c) - 2, height: rowHeight - 2 }, style: { fill: paint.fill } })
      text(cell, c, y, paint?.text ?? TEXT_COLOR, false)
    })
    const swatch = spec.swatch?.(r) ?? null
    if (swatch !== null) {
      elements.push({ type: 'rect', silent: true, shape: { x: body.left + 6, y: y + (rowHeight - fontSize) / 2, width: fontSize, height: fontSize, r: 2 }, style: { fill: swatch } })
    }
    elements.push({ type: 'line', silent: true, shape: { x1: body.left, y1: y + rowHeight, x2: body.left + body.width, y2: y + rowHeight }, style: { stroke: LINE_COLOR, lineWidth: 1 } })
  })
  return elements
}
