import { refuseExpression, tokenize, type Token } from './hogql-lexer.js'

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'like' | 'ilike' | 'not like' | 'not ilike' | 'in' | 'not in'

/** The HogQL Hedgelog understands: fields of the events table, constants, a few functions, comparisons and logic. */
export type Expr =
  | { readonly kind: 'field'; readonly field: EventField }
  | { readonly kind: 'property'; readonly of: 'event' | 'person'; readonly key: string }
  | { readonly kind: 'constant'; readonly value: string | number | boolean | null }
  | { readonly kind: 'call'; readonly name: FunctionName; readonly args: readonly Expr[] }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Expr; readonly right: Expr | readonly Expr[] }
  | { readonly kind: 'is_null'; readonly negated: boolean; readonly expr: Expr }
  | { readonly kind: 'and' | 'or'; readonly exprs: readonly Expr[] }
  | { readonly kind: 'not'; readonly expr: Expr }

export const EVENT_FIELDS = ['event', 'timestamp', 'distinct_id', 'uuid', 'person_id', 'elements_chain', 'created_at', 'properties'] as const
export type EventField = (typeof EVENT_FIELDS)[number]
export const FUNCTIONS = ['count', 'coalesce', 'ifNull', 'toString', 'isNull', 'isNotNull', 'lower', 'upper'] as const
export type FunctionName = (typeof FUNCTIONS)[number]

const COMPARE: Readonly<Record<string, CompareOp>> = { '=': '=', '==': '=', '!=': '!=', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' }

/** A recursive-descent parser over the tokens of one expression; anything else is refused, naming the expression. */
class Parser {
  private at = 0
  constructor(private readonly tokens: Token[], private readonly source: string, private readonly attr: string) {}

  fail(why: string): never {
    return refuseExpression(this.source, why, this.attr)
  }

  peek(offset = 0): Token | undefined { return this.tokens[this.at + offset] }
  done(): boolean { return this.at >= this.tokens.length }

  /** The next token if it is this keyword (names compare case-insensitively) or symbol. */
  accept(text: string): boolean {
    const token = this.peek()
    const hit = token !== undefined && ((token.kind === 'symbol' && token.text === text) || (token.kind === 'name' && !token.quoted && token.text.toLowerCase() === text))
    if (hit) this.at += 1
    return hit
  }

  name(why: string): string {
    const token = this.peek()
    if (token?.kind !== 'name') return this.fail(why)
    this.at += 1
    return token.text
  }

  expect(text: string): void {
    if (!this.accept(text)) this.fail(`expected ${JSON.stringify(text)}`)
  }

  or(): Expr {
    const exprs = [this.and()]
    while (this.accept('or')) exprs.push(this.and())
    return exprs.length === 1 ? exprs[0]! : { kind: 'or', exprs }
  }

  and(): Expr {
    const exprs = [this.not()]
    while (this.accept('and')) exprs.push(this.not())
    return exprs.length === 1 ? exprs[0]! : { kind: 'and', exprs }
  }

  not(): Expr {
    return this.accept('not') ? { kind: 'not', expr: this.not() } : this.compare()
  }

  compare(): Expr {
    const left = this.primary()
    const token = this.peek()
    if (token?.kind === 'symbol' && COMPARE[token.text]) {
      this.at += 1
      return { kind: 'compare', op: COMPARE[token.text]!, left, right: this.primary() }
    }
    if (this.accept('is')) {
      const negated = this.accept('not')
      this.expect('null')
      return { kind: 'is_null', negated, expr: left }
    }
    const negated = this.accept('not')
    if (this.accept('like')) return { kind: 'compare', op: negated ? 'not like' : 'like', left, right: this.primary() }
    if (this.accept('ilike')) return { kind: 'compare', op: negated ? 'not ilike' : 'ilike', left, right: this.primary() }
    if (this.accept('in')) {
      this.expect('(')
      const items = [this.primary()]
      while (this.accept(',')) items.push(this.primary())
      this.expect(')')
      return { kind: 'compare', op: negated ? 'not in' : 'in', left, right: items }
    }
    if (negated) this.fail('NOT must come before a comparison')
    return left
  }

  primary(): Expr {
    const token = this.peek()
    if (token === undefined) return this.fail('it ends too soon')
    this.at += 1
    if (token.kind === 'number') return { kind: 'constant', value: token.value }
    if (token.kind === 'string') return { kind: 'constant', value: token.text }
    if (token.kind === 'symbol') {
      if (token.text === '(') {
        const inner = this.or()
        this.expect(')')
        return inner
      }
      const next = this.peek()
      if (token.text === '-' && next?.kind === 'number') { this.at += 1; return { kind: 'constant', value: -next.value } }
      return this.fail(`${JSON.stringify(token.text)} is not understood here`)
    }
    if (!token.quoted) {
      const word = token.text.toLowerCase()
      if (word === 'true' || word === 'false') return { kind: 'constant', value: word === 'true' }
      if (word === 'null') return { kind: 'constant', value: null }
    }
    if (this.accept('(')) return this.call(token.text)
    return this.field(token.text)
  }

  call(name: string): Expr {
    if (!(FUNCTIONS as readonly string[]).includes(name)) this.fail(`the function ${name}() is not supported`)
    const args: Expr[] = []
    if (name === 'count' && this.accept('*')) { this.expect(')'); return { kind: 'call', name: 'count', args } }
    if (!this.accept(')')) {
      args.push(this.or())
      while (this.accept(',')) args.push(this.or())
      this.expect(')')
    }
    const arity = name === 'count' ? args.length === 0 : name === 'coalesce' ? args.length > 0 : name === 'ifNull' ? args.length === 2 : args.length === 1
    if (!arity) this.fail(`${name}() does not take ${args.length} argument${args.length === 1 ? '' : 's'}`)
    return { kind: 'call', name: name as FunctionName, args }
  }

  /** `properties.$browser`, `properties['a b']`, `person.properties.email`, or a column of the events table. */
  key(): string {
    if (this.accept('.')) return this.name('a property name must follow the dot')
    if (this.accept('[')) {
      const token = this.peek()
      if (token?.kind !== 'string') return this.fail('a property name in brackets must be a string')
      this.at += 1
      this.expect(']')
      return token.text
    }
    return this.fail('a property name must follow')
  }

  field(name: string): Expr {
    const next = this.peek()
    const followed = next?.kind === 'symbol' && (next.text === '.' || next.text === '[')
    if (name === 'properties' && followed) return { kind: 'property', of: 'event', key: this.key() }
    if (name === 'person' && followed) {
      const part = this.key()
      if (part === 'id') return { kind: 'field', field: 'person_id' }
      if (part !== 'properties') return this.fail(`person.${part} is not supported`)
      return { kind: 'property', of: 'person', key: this.key() }
    }
    if ((EVENT_FIELDS as readonly string[]).includes(name) && !followed) return { kind: 'field', field: name as EventField }
    return this.fail(`the field ${name} is not supported`)
  }
}

const parser = (source: string, attr: string): Parser => new Parser(tokenize(source, attr), source, attr)

/** Parses a boolean or value expression. */
export const parseExpr = (source: string, attr: string): Expr => {
  const p = parser(source, attr)
  const expr = p.or()
  if (!p.done()) p.fail('there is more after the expression')
  return expr
}

/** A select column: the expression and its alias (`expr AS alias`), if any. */
export const parseColumn = (source: string, attr: string): { expr: Expr; alias: string | null } => {
  const p = parser(source, attr)
  const expr = p.or()
  const alias = p.accept('as') ? p.name('an alias must follow AS') : null
  if (!p.done()) p.fail('there is more after the expression')
  return { expr, alias }
}

/** An ORDER BY item: the expression and its direction. */
export const parseOrder = (source: string, attr: string): { expr: Expr; descending: boolean } => {
  const p = parser(source, attr)
  const expr = p.or()
  const descending = p.accept('desc')
  if (!descending) p.accept('asc')
  if (!p.done()) p.fail('there is more after the expression')
  return { expr, descending }
}

/** Whether an expression aggregates rows (`count()`). */
export const isAggregate = (expr: Expr): boolean => {
  switch (expr.kind) {
    case 'call': return expr.name === 'count' || expr.args.some(isAggregate)
    case 'compare': return isAggregate(expr.left) || (Array.isArray(expr.right) ? expr.right.some(isAggregate) : isAggregate(expr.right as Expr))
    case 'is_null': case 'not': return isAggregate(expr.expr)
    case 'and': case 'or': return expr.exprs.some(isAggregate)
    default: return false
  }
}
