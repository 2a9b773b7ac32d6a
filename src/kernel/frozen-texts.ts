interface Written {
  readonly inputs: readonly unknown[]
  readonly text: string
}

/**
 * Texts written from deep-frozen documents and a few other values (`inputs`). Read models keep
 * the documents they read frozen, and read a document anew, as a new object, once its projection
 * moves; a frozen document cannot change, so its text is written once per document and inputs,
 * and again whenever an input differs. A document that is not frozen is written every time.
 */
export class FrozenTexts<D extends object> {
  private readonly written = new WeakMap<D, Written>()

  text(document: D, inputs: readonly unknown[], write: () => string): string {
    if (!Object.isFrozen(document)) return write()
    const known = this.written.get(document)
    if (known && sameInputs(known.inputs, inputs)) return known.text
    const text = flat(write())
    this.written.set(document, { inputs, text })
    return text
  }
}

const sameInputs = (a: readonly unknown[], b: readonly unknown[]): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false
  return true
}

/**
 * The same text as one flat string: text built by concatenation is a tree of its parts, which
 * every later use (joining it into an answer, writing it out) would walk again.
 */
const flat = (text: string): string => JSON.parse(JSON.stringify(text)) as string
