/** Strings JSON writes between quotes as they are: no quote, backslash, control character or surrogate. */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/

/**
 * A value as `JSON.stringify` writes it: undefined for what an object leaves out (undefined,
 * functions, symbols). Primitives, plain strings and empty plain objects are written here
 * without the call.
 */
export const jsonText = (value: unknown): string | undefined => {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string': return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value)
    case 'boolean': return value ? 'true' : 'false'
    case 'number': return Number.isFinite(value) ? String(value) : 'null'
    case 'object': return isEmptyPlainObject(value) ? '{}' : JSON.stringify(value)
    default: return JSON.stringify(value)
  }
}

const isEmptyPlainObject = (value: object): boolean => {
  if (Object.getPrototypeOf(value) !== Object.prototype || 'toJSON' in value) return false
  for (const key in value) if (Object.hasOwn(value, key)) return false
  return true
}

/**
 * An object's JSON text built member by member, as `JSON.stringify` writes an object literal with
 * the same keys in the same order: a member whose value it would leave out is left out. Keys are
 * written as given, so each must be a name that JSON does not escape. `text` members are JSON
 * already (written once, used in many places), and null stands for a null value. The parts are
 * joined once, at the end, into one flat string.
 */
export class JsonObjectText {
  private readonly parts: string[] = ['{']

  add(key: string, value: unknown): this {
    const text = jsonText(value)
    if (text !== undefined) this.parts.push(this.name(key), text)
    return this
  }

  text(key: string, text: string | null): this {
    this.parts.push(this.name(key), text ?? 'null')
    return this
  }

  /** An array member whose items are JSON texts. */
  items(key: string, texts: readonly string[]): this {
    this.parts.push(this.name(key), '[')
    texts.forEach((text, i) => {
      if (i > 0) this.parts.push(',')
      this.parts.push(text)
    })
    this.parts.push(']')
    return this
  }

  /** Members as `membersText` wrote them: JSON text without the braces ('' adds none). */
  members(text: string): this {
    if (text === '') return this
    if (this.parts.length > 1) this.parts.push(',')
    this.parts.push(text)
    return this
  }

  /** The members written so far without the braces, to be added to another object by `members`. */
  membersText(): string {
    return this.parts.slice(1).join('')
  }

  private name(key: string): string {
    return this.parts.length === 1 ? `"${key}":` : `,"${key}":`
  }

  end(): string {
    this.parts.push('}')
    return this.parts.join('')
  }
}

