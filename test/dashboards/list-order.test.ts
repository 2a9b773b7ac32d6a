import t from 'tap'
import fc from 'fast-check'
import { listOrderKey } from '../../src/dashboards/list-order.js'

const collator = new Intl.Collator('en')
const alphabet = [...'aAbBeEzZ019 _-.,!:/\\~$()\'"éÉèÈêëñÑçÇ\t', 'e\u0301', 'o\u0308', '\u0000']
const names = fc.array(fc.constantFrom(...alphabet), { maxLength: 6 }).map((chars) => chars.join(''))
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0)

t.test('keys in code-point order sort names as locale collation does', async (t) => {
  fc.assert(fc.property(names, names, (a, b) => {
    const [ka, kb] = [listOrderKey(a), listOrderKey(b)]
    return sign(collator.compare(a, b)) === (ka < kb ? -1 : ka > kb ? 1 : 0)
  }), { numRuns: 20_000 })
  t.pass('agrees on every generated pair')
})

t.test('a missing name sorts as an empty one, before any other', async (t) => {
  t.equal(listOrderKey(null), listOrderKey(''))
  t.ok(listOrderKey('') < listOrderKey(' '))
  t.ok(listOrderKey('Zeta') > listOrderKey('alpha'), 'case does not come first')
})
