import t from 'tap'
import { pythonJsonLength } from '../../src/kernel/python-json.js'

t.test('lengths are those of Python\'s json.dumps with its defaults', async (t) => {
  // Each length was printed by Python 3's len(json.dumps(value)).
  const cases: [unknown, number][] = [
    [{ a: [1, 'é', null, true] }, 32],
    [{ sm: { x: 0, y: 2, w: 6, h: 5 } }, 40],
    ['tab\there "q" \\ 😀 \u007f', 40],
    [[], 2],
    [{}, 2],
    [[false, -1.5, '', { k: [] }], 28],
  ]
  for (const [value, length] of cases) t.equal(pythonJsonLength(value), length, JSON.stringify(value))
})
