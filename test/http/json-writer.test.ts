import t from 'tap'
import Fastify from 'fastify'
import fc from 'fast-check'
import { z } from 'zod'
import { jsonWriter } from '../../src/http/json-writer.js'
import { useZod } from '../../src/http/zod.js'
import { deepFreeze } from '../../src/kernel/deep-freeze.js'

const TRICKY: unknown[] = [
  null, true, false, 0, -0, 1.5, -3, 1e21, 1e-7, NaN, Infinity, -Infinity, '', 'plain', 'a "quote"', 'back\\slash', 'line\nbreak',
  '\u0000\u001f', '\u2028\u2029', '✓ é', '😀', '\ud800', 'x\udc00y', {}, [], { a: 1 }, [1, 'two', null], Object.create(null),
]

t.test('a value of any kind, in any place, is written as JSON.stringify writes it', async (t) => {
  const places = {
    string: z.string(), number: z.number(), integer: z.number().int(), boolean: z.boolean(), null: z.null(),
    nullable: z.string().nullable(), union: z.union([z.literal(false), z.object({ a: z.number() })]), open: z.unknown(),
    list: z.array(z.string()), map: z.record(z.string(), z.number()), object: z.object({ a: z.number() }),
  }
  for (const [name, schema] of Object.entries(places)) {
    const write = jsonWriter(z.object({ value: schema }))
    const inList = jsonWriter(z.array(schema))
    TRICKY.forEach((value, i) => {
      t.equal(write({ value } as never), JSON.stringify({ value }), `${name}: value ${i}`)
      t.equal(inList([value] as never), JSON.stringify([value]), `${name}: value ${i} in a list`)
    })
  }
})

t.test('members come in the schema\'s order, undefined ones are left out and undeclared ones are not written', async (t) => {
  const write = jsonWriter(z.object({ a: z.number(), b: z.string().optional(), c: z.unknown(), d: z.object({ e: z.boolean() }) }))
  t.equal(write({ a: 1, b: 'x', c: [1], d: { e: true } }), '{"a":1,"b":"x","c":[1],"d":{"e":true}}')
  t.equal(write({ a: 1, b: undefined, c: undefined, d: { e: false } }), '{"a":1,"d":{"e":false}}')
  t.equal(write({ a: 1, c: null, d: { e: true, f: 2 }, g: 3 } as never), '{"a":1,"c":null,"d":{"e":true}}')
  t.equal(write({} as never), '{}')
})

t.test('a record keeps its own order, array indices first, with any key an ordinary entry', async (t) => {
  const write = jsonWriter(z.record(z.string(), z.union([z.boolean(), z.string()])))
  const map = Object.create(null) as Record<string, unknown>
  for (const key of ['zeta', '10', '__proto__', '2', 'é"\\', 'gone']) map[key] = key === 'gone' ? undefined : key.length > 2
  t.equal(write(map as never), JSON.stringify(map))
  t.equal(write(map as never), '{"2":false,"10":false,"zeta":true,"__proto__":true,"é\\"\\\\":true}')
})

t.test('holes and undefined items of a list are written as null', async (t) => {
  const write = jsonWriter(z.array(z.number()))
  // eslint-disable-next-line no-sparse-arrays
  t.equal(write([1, , undefined, 2] as never), '[1,null,null,2]')
})

t.test('random JSON values are written as JSON.stringify writes them', async (t) => {
  const open = jsonWriter(z.unknown())
  const listOfMaps = jsonWriter(z.array(z.record(z.string(), z.unknown())))
  const typed = jsonWriter(z.object({ id: z.number(), name: z.string().nullable(), tags: z.array(z.string()), on: z.boolean(), extra: z.unknown() }))
  t.doesNotThrow(() => fc.assert(fc.property(fc.jsonValue(), (value) => open(value) === JSON.stringify(value)), { numRuns: 2000 }))
  t.doesNotThrow(() => fc.assert(fc.property(
    fc.array(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue())), (value) => listOfMaps(value) === JSON.stringify(value),
  ), { numRuns: 1000 }))
  const conforming = fc.record({
    id: fc.double(), name: fc.option(fc.string({ unit: 'binary' }), { nil: null }), tags: fc.array(fc.string({ unit: 'binary' })), on: fc.boolean(), extra: fc.jsonValue(),
  }, { requiredKeys: ['id', 'tags', 'on'] })
  t.doesNotThrow(() => fc.assert(fc.property(conforming, (value) => typed(value as never) === JSON.stringify(value)), { numRuns: 2000 }))
})

t.test('a kept part is written once per frozen value, and every time for a value that may still change', async (t) => {
  const Part = z.object({ id: z.number(), name: z.string() }).meta({ kept: true })
  const write = jsonWriter(z.object({ first: Part, rest: z.array(Part), maybe: Part.nullable() }))
  let reads = 0
  const counted = (name: string) => deepFreeze({ get id() { reads++; return 1 }, name })
  const frozen = counted('frozen')
  const expected = '{"first":{"id":1,"name":"frozen"},"rest":[{"id":1,"name":"frozen"}],"maybe":{"id":1,"name":"frozen"}}'
  t.equal(write({ first: frozen, rest: [frozen], maybe: frozen }), expected)
  const afterFirst = reads
  t.equal(write({ first: frozen, rest: [frozen], maybe: frozen }), expected, 'again, from the texts kept')
  t.equal(reads, afterFirst, 'the frozen value is not read again')
  t.equal(write({ first: frozen, rest: [], maybe: null }), '{"first":{"id":1,"name":"frozen"},"rest":[],"maybe":null}')
  const open = { id: 2, name: 'open' }
  t.equal(write({ first: open, rest: [open], maybe: open }), JSON.stringify({ first: open, rest: [open], maybe: open }))
  open.name = 'changed'
  t.equal(write({ first: open, rest: [open], maybe: open }), JSON.stringify({ first: open, rest: [open], maybe: open }), 'a value that is not frozen is written anew')
})

t.test('a route with a response schema answers through its writer, as JSON', async (t) => {
  const app = Fastify()
  useZod(app)
  const Answer = z.object({ id: z.number(), name: z.string().nullable() })
  app.get('/thing', { schema: { response: { 200: Answer } } }, async () => ({ name: 'x "y"', id: 1, ignored: true }))
  app.post('/thing', { schema: { response: { 201: Answer } } }, async (_request, reply) => reply.status(201).send({ id: 2, name: null }))
  app.get('/missing', { schema: { response: { 200: Answer } } }, async () => {
    throw Object.assign(new Error('Not found.'), { statusCode: 404 })
  })
  t.teardown(() => app.close())
  const got = await app.inject({ method: 'GET', url: '/thing' })
  t.equal(got.body, '{"id":1,"name":"x \\"y\\""}', 'in the schema\'s order, undeclared members left out')
  t.equal(got.headers['content-type'], 'application/json; charset=utf-8')
  t.equal((await app.inject({ method: 'POST', url: '/thing' })).body, '{"id":2,"name":null}')
  t.equal((await app.inject({ method: 'GET', url: '/missing' })).body, '{"statusCode":404,"error":"Not Found","message":"Not found."}', 'an error is answered without the schema')
})
