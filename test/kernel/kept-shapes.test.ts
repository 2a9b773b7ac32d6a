import t from 'tap'
import { deepFreeze } from '../../src/kernel/deep-freeze.js'
import { KeptShapes } from '../../src/kernel/kept-shapes.js'

interface Doc { readonly id: number; readonly tags: readonly string[] }

const counting = () => {
  let builds = 0
  const shapes = new KeptShapes<Doc, [string], { id: number; label: string; tags: readonly string[] }>()
  const shape = (doc: Doc, label: string) => shapes.shape(doc, [label], (document, [given]) => {
    builds++
    return { id: document.id, label: given, tags: document.tags }
  })
  return { shape, builds: () => builds }
}

t.test('a frozen document\'s shape is built once for the same inputs, and is frozen all the way down', async (t) => {
  const { shape, builds } = counting()
  const doc = deepFreeze({ id: 1, tags: ['a'] })
  const first = shape(doc, 'x')
  t.equal(shape(doc, 'x'), first, 'the same shape, not an equal one')
  t.equal(builds(), 1)
  t.ok(Object.isFrozen(first))
  t.same(first, { id: 1, label: 'x', tags: ['a'] })
})

t.test('other inputs build another shape, and the last few are kept for each document', async (t) => {
  const { shape, builds } = counting()
  const doc = deepFreeze({ id: 1, tags: [] })
  const labels = ['a', 'b', 'c', 'd']
  const shapes = labels.map((label) => shape(doc, label))
  t.same(shapes.map((s) => s.label), labels)
  labels.forEach((label, i) => t.equal(shape(doc, label), shapes[i], `${label} again`))
  t.equal(builds(), 4, 'four sets of inputs, each built once')
  shape(doc, 'e')
  t.equal(builds(), 5)
  shape(doc, 'd')
  t.equal(builds(), 5, 'a recently used set is still kept')
  shape(doc, 'a')
  t.equal(builds(), 6, 'the set used longest ago was let go')
  const other = deepFreeze({ id: 2, tags: [] })
  t.equal(shape(other, 'a').id, 2, 'each document has its own shapes')
})

t.test('a document that is not frozen gets a new shape every time, not frozen', async (t) => {
  const { shape, builds } = counting()
  const doc = { id: 1, tags: ['a'] }
  const first = shape(doc, 'x')
  t.notOk(Object.isFrozen(first))
  doc.id = 2
  t.equal(shape(doc, 'x').id, 2, 'a change is seen')
  t.equal(builds(), 2)
})
