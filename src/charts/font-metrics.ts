import { readFileSync } from 'node:fs'

/**
 * How wide text is in a TrueType font, read from the font file itself: its units per em
 * (`head`), the advance width of each glyph (`hhea`, `hmtx`), and which glyph draws each
 * character (`cmap`, the Windows Unicode BMP subtable, format 4).
 */
export interface FontMetrics {
  /** The advance of `text` at `size` pixels. */
  readonly width: (text: string, size: number) => number
}

const tableOffsets = (font: Buffer): Map<string, number> => {
  const tables = new Map<string, number>()
  const count = font.readUInt16BE(4)
  for (let i = 0; i < count; i++) {
    const record = 12 + 16 * i
    tables.set(font.toString('latin1', record, record + 4), font.readUInt32BE(record + 8))
  }
  return tables
}

/** The glyph of each character of the Basic Multilingual Plane the font maps (cmap format 4). */
const glyphIndex = (font: Buffer, cmap: number): ((code: number) => number) => {
  const subtables = font.readUInt16BE(cmap + 2)
  let table = -1
  for (let i = 0; i < subtables; i++) {
    const record = cmap + 4 + 8 * i
    if (font.readUInt16BE(record) === 3 && font.readUInt16BE(record + 2) === 1) table = cmap + font.readUInt32BE(record + 4)
  }
  if (table < 0 || font.readUInt16BE(table) !== 4) return () => 0
  const segments = font.readUInt16BE(table + 6) / 2
  const ends = table + 14
  const starts = ends + 2 * segments + 2
  const deltas = starts + 2 * segments
  const rangeOffsets = deltas + 2 * segments
  return (code) => {
    for (let s = 0; s < segments; s++) {
      if (font.readUInt16BE(ends + 2 * s) < code) continue
      const start = font.readUInt16BE(starts + 2 * s)
      if (start > code) return 0
      const delta = font.readInt16BE(deltas + 2 * s)
      const rangeOffset = font.readUInt16BE(rangeOffsets + 2 * s)
      if (rangeOffset === 0) return (code + delta) & 0xffff
      const glyph = font.readUInt16BE(rangeOffsets + 2 * s + rangeOffset + 2 * (code - start))
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff
    }
    return 0
  }
}

/** Reads the metrics of the TrueType font at `path`. */
export const readFontMetrics = (path: string): FontMetrics => {
  const font = readFileSync(path)
  const tables = tableOffsets(font)
  const unitsPerEm = font.readUInt16BE(tables.get('head')! + 18)
  const metricCount = font.readUInt16BE(tables.get('hhea')! + 34)
  const hmtx = tables.get('hmtx')!
  const glyphOf = glyphIndex(font, tables.get('cmap')!)
  const advance = (glyph: number) => font.readUInt16BE(hmtx + 4 * Math.min(glyph, metricCount - 1))
  const ems = new Map<number, number>()
  const em = (code: number): number => {
    let width = ems.get(code)
    if (width === undefined) ems.set(code, (width = code > 0xffff ? 1 : advance(glyphOf(code)) / unitsPerEm))
    return width
  }
  return {
    width: (text, size) => {
      let total = 0
      for (const character of text) total += em(character.codePointAt(0)!)
      return total * size
    },
  }
}
