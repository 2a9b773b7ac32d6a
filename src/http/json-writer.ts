import { z } from 'zod'

/** The part of JSON Schema that `z.toJSONSchema` writes for the shapes of responses. */
interface Schema {
  readonly type?: string | readonly string[]
  readonly properties?: Readonly<Record<string, Schema>>
  readonly additionalProperties?: Schema | boolean
  readonly items?: Schema | boolean
  readonly prefixItems?: readonly Schema[]
  readonly anyOf?: readonly Schema[]
  /** Set with `.meta({ kept: true })`: a frozen value here is written once and its text reused. */
  readonly kept?: boolean
}

type Kind = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object'

/** Strings JSON writes between quotes as they are: no quote, backslash, control character or surrogate. */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/

const string = (value: string): string => (PLAIN.test(value) ? `"${value}"` : JSON.stringify(value))

/** What the schema leaves open, or a value of another kind than it says, is written by `JSON.stringify`. */
const other = (value: unknown): string => JSON.stringify(value) ?? 'null'

/**
 * One flat string: text built by concatenation is a tree of its parts, which every later use
 * (joining it into an answer, writing it out) would walk again.
 */
const flat = (text: string): string => JSON.parse(JSON.stringify(text)) as string

/** A value's text, kept when the value is a frozen object or array: it cannot change while it lives. */
const remember = (texts: WeakMap<object, string>, value: unknown, write: (value: unknown) => string): string => {
  const text = write(value)
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return text
  const kept = flat(text)
  texts.set(value, kept)
  return kept
}

/**
 * Kept texts are long and flat, so a writer that uses them collects its text in parts, a kept text
 * one part of its own, and joins them once: joining copies each part once into one flat string,
 * where text built by `+=` is a tree that writing it out would first have to flatten, which costs
 * more. A text that is one kept text is that text itself.
 */
const part = (text: string): string => `if (json !== '') parts.push(json)\nparts.push(${text})\njson = ''`

const joined = (parts: string[], json: string): string => {
  if (json !== '') parts.push(json)
  return parts.length === 1 ? parts[0]! : parts.join('')
}

/**
 * The kinds of JSON value a schema allows, each with the schema that writes it; null when only
 * `JSON.stringify` can tell (a schema open to anything, or a union with two branches of one kind).
 */
const kindsOf = (schema: Schema): Map<Kind, Schema> | null => {
  if (!schema.anyOf) {
    const types = [schema.type ?? []].flat()
    return types.length === 0 ? null : new Map(types.map((type) => [type === 'integer' ? 'number' : type as Kind, schema]))
  }
  const kinds = new Map<Kind, Schema>()
  for (const branch of schema.anyOf) {
    const found = kindsOf(branch)
    if (found === null) return null
    for (const [kind, written] of found) {
      if (kinds.has(kind)) return null
      kinds.set(kind, written)
    }
  }
  return kinds
}

/** The test that a value is of a kind, as code. */
const TESTS: Readonly<Record<Kind, (v: string) => string>> = {
  null: (v) => `${v} === null`,
  boolean: (v) => `typeof ${v} === 'boolean'`,
  number: (v) => `typeof ${v} === 'number'`,
  string: (v) => `typeof ${v} === 'string'`,
  array: (v) => `Array.isArray(${v})`,
  object: (v) => `typeof ${v} === 'object' && ${v} !== null && !Array.isArray(${v})`,
}

/** A member's name and colon, after a comma or not, as a string literal in code. */
const memberName = (name: string, comma: boolean): string => JSON.stringify(`${comma ? ',' : ''}${JSON.stringify(name)}:`)

/**
 * Generates a writer's code: for each schema, statements that append the JSON of a value (never
 * undefined) held in a local variable to `json`. Helpers (kept texts, nested writers, key sets)
 * are passed in the array `h`.
 */
class Generator {
  readonly helpers: unknown[] = []
  private names = 0
  /** Whether the function being generated writes kept texts as parts of their own. */
  private parted = false

  private name(prefix: string): string {
    return `${prefix}${this.names++}`
  }

  private helper(value: unknown): string {
    this.helpers.push(value)
    return `h[${this.helpers.length - 1}]`
  }

  value(schema: Schema, v: string): string {
    const kinds = kindsOf(schema)
    const kept = schema.kept ? schema : [...kinds?.values() ?? []].find((branch) => branch.kept)
    if (kept === undefined) return this.dispatch(kinds, v)
    // A kept text is looked up before anything else; only an object or array can have one.
    const [texts, text] = [this.helper(new WeakMap()), this.name('t')]
    const write = this.helper(this.compile({ ...kept, kept: false }))
    const remembered = part(`remember(${texts}, ${v}, ${write})`)
    this.parted = true
    return `const ${text} = typeof ${v} === 'object' && ${v} !== null ? ${texts}.get(${v}) : undefined
      if (${text} !== undefined) {
        ${part(text)}
      } else {
        ${kinds === null || kept === schema ? remembered : this.dispatch(kinds, v, kept, remembered)}
      }`
  }

  /** Code choosing by the value's kind; the kept branch, if any, writes `remembered`. */
  private dispatch(kinds: Map<Kind, Schema> | null, v: string, kept?: Schema, remembered?: string): string {
    if (kinds === null) return `json += other(${v})`
    let code = ''
    for (const [kind, branch] of kinds) code += `if (${TESTS[kind](v)}) {\n${branch === kept ? remembered : this.kind(kind, branch, v)}\n} else `
    return `${code}json += other(${v})`
  }

  private kind(kind: Kind, schema: Schema, v: string): string {
    switch (kind) {
      case 'null': return `json += 'null'`
      case 'boolean': return `json += ${v} ? 'true' : 'false'`
      case 'number': return `json += Number.isFinite(${v}) ? '' + ${v} : 'null'`
      case 'string': return `json += string(${v})`
      case 'array': return this.array(schema, v)
      case 'object': return this.object(schema, v)
    }
  }

  private array(schema: Schema, v: string): string {
    const items = typeof schema.items === 'object' && !schema.prefixItems ? schema.items : {}
    const [i, item] = [this.name('i'), this.name('v')]
    return `json += '['
      for (let ${i} = 0; ${i} < ${v}.length; ${i}++) {
        if (${i} > 0) json += ','
        const ${item} = ${v}[${i}]
        if (${item} === undefined) json += 'null'
        else {
          ${this.value(items, item)}
        }
      }
      json += ']'`
  }

  private object(schema: Schema, v: string): string {
    const properties = Object.entries(schema.properties ?? {})
    const more = schema.additionalProperties === undefined || schema.additionalProperties === true ? {} : schema.additionalProperties
    const started = this.name('s')
    let code = `json += '{'\nlet ${started} = false\n`
    for (const [name, property] of properties) {
      const member = this.name('m')
      code += `const ${member} = ${v}[${JSON.stringify(name)}]
        if (${member} !== undefined) {
          json += ${started} ? ${memberName(name, true)} : ${memberName(name, false)}
          ${started} = true
          ${this.value(property, member)}
        }\n`
    }
    if (more !== false) {
      const [name, member] = [this.name('k'), this.name('m')]
      const declared = properties.length > 0 ? `${this.helper(new Set(properties.map(([declaredName]) => declaredName)))}.has(${name}) || ` : ''
      code += `for (const ${name} of Object.keys(${v})) {
          const ${member} = ${v}[${name}]
          if (${declared}${member} === undefined) continue
          json += (${started} ? ',' : '') + string(${name}) + ':'
          ${started} = true
          ${this.value(more, member)}
        }\n`
    }
    return `${code}json += '}'`
  }

  compile(schema: Schema): (value: unknown) => string {
    const outer = this.parted
    this.parted = false
    const body = this.value(schema, 'value')
    const source = this.parted
      ? `return function write (value) {\nconst parts = []\nlet json = ''\n${body}\nreturn joined(parts, json)\n}`
      : `return function write (value) {\nlet json = ''\n${body}\nreturn json\n}`
    this.parted = outer
    // Generated once per schema, as fast-json-stringify does: plain code with each key written in.
    const make = new Function('h', 'string', 'other', 'remember', 'joined', source) as (h: unknown[], ...helpers: unknown[]) => (value: unknown) => string
    return make(this.helpers, string, other, remember, joined)
  }
}

const writers = new WeakMap<z.ZodType, (value: unknown) => string>()

/**
 * The writer of JSON text for a response schema, compiled once per schema: for a value of the
 * schema whose object keys come in the schema's order, what `JSON.stringify` writes, byte for
 * byte. Members are written in the schema's order, undefined ones left out as `JSON.stringify`
 * leaves them out; members an object schema does not declare are written only where it takes any
 * (a record), after the declared ones, in the object's own order. What the schema leaves open
 * (`z.unknown()`, a custom type), and a value of another kind than it says, is written by
 * `JSON.stringify`. Values are JSON data: no `toJSON`, functions or symbols. A part marked
 * `.meta({ kept: true })` is written once per frozen value, which cannot change (see `KeptShapes`).
 */
export const jsonWriter = <S extends z.ZodType>(schema: S): ((value: z.input<S>) => string) => {
  let writer = writers.get(schema)
  if (writer === undefined) {
    writer = new Generator().compile(z.toJSONSchema(schema, { unrepresentable: 'any' }) as Schema)
    writers.set(schema, writer)
  }
  return writer
}
