import { QueryRefused } from '../errors.js'

export type Token =
  | { readonly kind: 'name'; readonly text: string; readonly quoted: boolean }
  | { readonly kind: 'string'; readonly text: string }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'symbol'; readonly text: string }

const SYMBOLS = ['==', '!=', '<>', '<=', '>=', '=', '<', '>', '(', ')', ',', '*', '.', '-', '[', ']']
const NAME_START = /[A-Za-z_$]/
const NAME_PART = /[A-Za-z0-9_$]/

/** Refuses the text a query gave, quoting it whole, so the 400 names the expression it could not use. */
export const refuseExpression = (source: string, why: string, attr: string): never => {
  throw new QueryRefused(`Hedgelog runs only simple HogQL expressions; it cannot use ${JSON.stringify(source)}: ${why}.`, 'unsupported_query', attr)
}

const quoted = (source: string, at: number, quote: string, attr: string): [string, number] => {
  let text = ''
  let i = at + 1
  while (i < source.length) {
    const c = source[i]!
    if (c === '\\' && i + 1 < source.length) {
      const next = source[i + 1]!
      text += next === 'n' ? '\n' : next === 't' ? '\t' : next
      i += 2
    } else if (c === quote) {
      if (source[i + 1] === quote) { text += quote; i += 2; continue }
      return [text, i + 1]
    } else {
      text += c
      i += 1
    }
  }
  return refuseExpression(source, 'a quote is not closed', attr)
}

/** Splits an expression into tokens; `-- comments` run to the end of the line. */
export const tokenize = (source: string, attr: string): Token[] => {
  const out: Token[] = []
  let i = 0
  while (i < source.length) {
    const c = source[i]!
    if (/\s/.test(c)) { i += 1; continue }
    if (source.startsWith('--', i)) {
      while (i < source.length && source[i] !== '\n') i += 1
      continue
    }
    if (c === "'") {
      const [text, next] = quoted(source, i, "'", attr)
      out.push({ kind: 'string', text })
      i = next
    } else if (c === '`' || c === '"') {
      const [text, next] = quoted(source, i, c, attr)
      out.push({ kind: 'name', text, quoted: true })
      i = next
    } else if (/[0-9]/.test(c)) {
      const match = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(source.slice(i))!
      out.push({ kind: 'number', value: Number(match[0]) })
      i += match[0].length
    } else if (NAME_START.test(c)) {
      let j = i + 1
      while (j < source.length && NAME_PART.test(source[j]!)) j += 1
      out.push({ kind: 'name', text: source.slice(i, j), quoted: false })
      i = j
    } else {
      const symbol = SYMBOLS.find((s) => source.startsWith(s, i))
      if (symbol === undefined) refuseExpression(source, `the character ${JSON.stringify(c)} is not understood`, attr)
      out.push({ kind: 'symbol', text: symbol! })
      i += symbol!.length
    }
  }
  return out
}
