import { deepFreeze } from './deep-freeze.js'

interface Built<I, S> {
  readonly inputs: I
  readonly shape: S
}

/** Shapes kept per document: one for each of the few sets of inputs a document is shown with. */
const VARIANTS = 4

/**
 * Response shapes built from deep-frozen documents and a few other values (`inputs`). Read models
 * keep the documents they read frozen, and read a document anew, as a new object, once its
 * projection moves; a frozen document cannot change, so its shape is built once per document and
 * inputs, returned deep-frozen, and built again when the inputs differ (a document keeps the shapes
 * of its last few sets of inputs). A response writer writes a frozen shape once (`kept` in
 * `http/json-writer.ts`), so the same shape also saves writing it. A document that is not frozen
 * gets a shape built anew, not frozen, every time. `build` is given the document and the inputs,
 * so a function made once can build every shape (no closure is made for a request that finds one).
 */
export class KeptShapes<D extends object, I extends readonly unknown[], S extends object> {
  private readonly built = new WeakMap<D, Built<I, S>[]>()

  shape(document: D, inputs: I, build: (document: D, inputs: I) => S): S {
    if (!Object.isFrozen(document)) return build(document, inputs)
    const variants = this.built.get(document)
    if (variants === undefined) {
      const shape = deepFreeze(build(document, inputs))
      this.built.set(document, [{ inputs, shape }])
      return shape
    }
    for (let i = 0; i < variants.length; i++) {
      const variant = variants[i]!
      if (!sameInputs(variant.inputs, inputs)) continue
      // The shape used last comes first, so the one a document is shown with most is found at once.
      if (i > 0) variants.unshift(...variants.splice(i, 1))
      return variant.shape
    }
    const shape = deepFreeze(build(document, inputs))
    variants.unshift({ inputs, shape })
    if (variants.length > VARIANTS) variants.pop()
    return shape
  }
}

const sameInputs = (a: readonly unknown[], b: readonly unknown[]): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false
  return true
}
