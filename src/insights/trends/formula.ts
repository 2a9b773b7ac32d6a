import { QueryRefused } from '../errors.js'

/** A parsed formula: evaluates with one number per series letter (A is the first series). */
export type Formula = (values: readonly number[]) => number

type Token = { kind: 'number'; value: number } | { kind: 'letter'; index: number } | { kind: 'op'; op: string }

const tokenize = (text: string): Token[] => {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const char = text[i]!
    if (/\s/.test(char)) { i++; continue }
    const number = /^(\d+\.?\d*|\.\d+)/.exec(text.slice(i))
    if (number) {
      tokens.push({ kind: 'number', value: Number(number[0]) })
      i += number[0].length
    } else if (/[A-Za-z]/.test(char)) {
      tokens.push({ kind: 'letter', index: char.toUpperCase().charCodeAt(0) - 65 })
      i++
    } else if ('+-*/%()'.includes(char)) {
      tokens.push({ kind: 'op', op: char })
      i++
    } else {
      throw new QueryRefused(`Invalid formula ${JSON.stringify(text)}: unexpected ${JSON.stringify(char)}.`, 'invalid_input', 'formula')
    }
  }
  return tokens
}

/**
 * Parses a trends formula (`A+B`, `(A-B)/A*100`, `-A % 3`): numbers, series letters, + − × ÷ %,
 * unary signs and parentheses, by recursive descent; nothing is evaluated as code. Division or
 * remainder by zero gives 0, as PostHog's formulas do. A letter past the last series, or text
 * that does not parse, is refused with a 400.
 */
export const parseFormula = (text: string, seriesCount: number): Formula => {
  const tokens = tokenize(text)
  let at = 0
  const fail = (why: string): never => { throw new QueryRefused(`Invalid formula ${JSON.stringify(text)}: ${why}.`, 'invalid_input', 'formula') }
  const peekOp = (): string | null => {
    const token = tokens[at]
    return token?.kind === 'op' ? token.op : null
  }
  const primary = (): Formula => {
    const token = tokens[at++]
    if (token === undefined) return fail('it ends too soon')
    if (token.kind === 'number') return () => token.value
    if (token.kind === 'letter') {
      if (token.index >= seriesCount) fail(`series ${String.fromCharCode(65 + token.index)} does not exist`)
      return (values) => values[token.index] ?? 0
    }
    if (token.op === '(') {
      const inner = sum()
      if (peekOp() !== ')') fail('a parenthesis is not closed')
      at++
      return inner
    }
    if (token.op === '-' || token.op === '+') {
      const operand = primary()
      return token.op === '-' ? (values) => -operand(values) : operand
    }
    return fail(`unexpected ${JSON.stringify(token.op)}`)
  }
  const product = (): Formula => {
    let left = primary()
    for (let op = peekOp(); op === '*' || op === '/' || op === '%'; op = peekOp()) {
      at++
      const a = left
      const b = primary()
      left = op === '*' ? (v) => a(v) * b(v) : op === '/' ? (v) => { const d = b(v); return d === 0 ? 0 : a(v) / d } : (v) => { const d = b(v); return d === 0 ? 0 : a(v) % d }
    }
    return left
  }
  const sum = (): Formula => {
    let left = product()
    for (let op = peekOp(); op === '+' || op === '-'; op = peekOp()) {
      at++
      const a = left
      const b = product()
      left = op === '+' ? (v) => a(v) + b(v) : (v) => a(v) - b(v)
    }
    return left
  }
  if (tokens.length === 0) fail('it is empty')
  const formula = sum()
  if (at < tokens.length) fail('there is text after the end')
  return formula
}
