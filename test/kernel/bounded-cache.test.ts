import t from 'tap'
import { boundedCache } from '../../src/kernel/bounded-cache.js'
import { KeyRateLimiter } from '../../src/auth/rate-limit.js'

t.test('past its bound, the least recently used entry goes first: a get counts as a use', async (t) => {
  const cache = boundedCache<string, number>({ max: 3 })
  cache.set('a', 1)
  cache.set('b', 2)
  cache.set('c', 3)
  t.equal(cache.get('a'), 1)
  cache.set('d', 4)
  t.same([...cache.keys()].sort(), ['a', 'c', 'd'], 'b, the least recently used, is forgotten')
  cache.set('c', 30)
  cache.set('e', 5)
  t.same([...cache.keys()].sort(), ['c', 'd', 'e'], 'setting c again used it; a went')
})

t.test('a summed size bounds the entries kept, and an entry larger than it is not kept', async (t) => {
  const cache = boundedCache<string, readonly number[]>({ max: 100, maxSize: 5, sizeOf: (value) => Math.max(1, value.length) })
  cache.set('three', [1, 2, 3])
  cache.set('two', [1, 2])
  t.equal(cache.size, 2)
  cache.set('one', [1])
  t.same([...cache.keys()].sort(), ['one', 'two'], 'the oldest went to make room')
  cache.set('six', [1, 2, 3, 4, 5, 6])
  t.equal(cache.get('six'), undefined)
  t.same([...cache.keys()].sort(), ['one', 'two'])
})

t.test('an entry with an age is answered until it has passed; an age must be positive', async (t) => {
  const cache = boundedCache<string, number>({ max: 10, ttlMs: 30 })
  cache.set('token', 7)
  t.equal(cache.get('token'), 7)
  await new Promise((resolve) => setTimeout(resolve, 60))
  t.equal(cache.get('token'), undefined)
  t.throws(() => boundedCache({ max: 10, ttlMs: 0 }), RangeError)
})

t.test('rate counters past their bound forget the least recently counted key, and keep the others\' counts', async (t) => {
  const limiter = new KeyRateLimiter([{ limit: 2, ms: 60_000 }], 2)
  const now = 1_000_000
  t.equal(limiter.take('a', now), null)
  t.equal(limiter.take('b', now), null)
  t.equal(limiter.take('a', now + 1), null)
  t.equal(limiter.take('a', now + 2), 60, 'a used its window')
  t.equal(limiter.take('c', now + 3), null, 'c takes the place of b, counted less recently than a')
  t.equal(limiter.waiting('a', now + 4), 60, 'a is still counted')
  t.equal(limiter.waiting('b', now + 4), null, 'b is forgotten')
})
