import { createHash } from 'node:crypto'

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/** An attribute value as the browser reads it: character references decoded. */
const attributeValue = (raw: string): string =>
  raw.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10)
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return NAMED[name.toLowerCase()] ?? whole
  })

/**
 * The distinct `style` attribute values of SVG the charts module drew (ECharts sets each text's
 * font that way), as CSP hash sources of their decoded text: a policy with `'unsafe-hashes'` and
 * these allows exactly the style attributes the charts wrote, and no other.
 */
export const styleAttributeSources = (svgs: readonly string[]): string[] => {
  const values = new Set<string>()
  for (const svg of svgs) {
    for (const match of svg.matchAll(/\sstyle="([^"]*)"/g)) values.add(attributeValue(match[1]!))
  }
  return [...values].sort().map((value) => `'sha256-${createHash('sha256').update(value).digest('base64')}'`)
}

/**
 * A chart's SVG without its `<style>` elements. ECharts writes one for hover effects (and for
 * entry animations, which the charts module turns off); a page without scripts has no use for
 * them, and the page's policy allows its own style block only.
 */
export const withoutStyleElements = (svg: string): string => svg.replace(/<style\b[^>]*>[\s\S]*?<\/style\s*>/gi, '')
