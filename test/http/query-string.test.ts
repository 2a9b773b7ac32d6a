import t from 'tap'
import { parse } from 'node:querystring'
import { lastValues } from '../../src/http/query-string.js'

/** What routes saw before: `node:querystring`, the last value of a repeated name. */
const reference = (text: string) =>
  Object.fromEntries(Object.entries(parse(text)).map(([name, value]) => [name, Array.isArray(value) ? value.at(-1) ?? '' : value ?? '']))

const same = (text: string): boolean => {
  const ours = lastValues(text)
  const theirs = reference(text)
  return JSON.stringify(Object.entries(ours)) === JSON.stringify(Object.entries(theirs)) && Object.getPrototypeOf(ours) === Object.getPrototypeOf(theirs)
}

t.test('query strings parse as node:querystring parses them, keeping the last value of a name', async (t) => {
  const cases = [
    '', '&', '&&', '=', '==', 'a', 'a=', '=a', 'a=b=c', 'a&a=1', 'a=1&a', 'a=1&b=2&a=3', '1=x&b=y&0=z', 'limit=25&offset=0',
    '__proto__=x', 'a=1&__proto__=2', 'constructor=1&toString=2', 'distinct_id=ada', 'a=%20b', 'a+b=c+d', 'a=%zz', 'é=€', `a=${'x'.repeat(2000)}`,
    Array.from({ length: 1200 }, (_, i) => `k${i}=${i}`).join('&'),
  ]
  for (const text of cases) t.ok(same(text), JSON.stringify(text.slice(0, 60)))
  const alphabet = ['a', 'b', '=', '&', '1', '0', '_', '.', '~', 'é', ';', '?', '#', '%', '+', '%41', '__proto__', '']
  let seed = 7
  const random = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
  let differing = 0
  for (let i = 0; i < 20000; i++) {
    let text = ''
    for (let j = random(12); j > 0; j--) text += alphabet[random(alphabet.length)]
    if (!same(text)) differing++
  }
  t.equal(differing, 0, 'random query strings')
})
