import t from 'tap'
import { world } from '../support/world.js'

t.test('an unknown route gets PostHog\'s 404 body', async (t) => {
  const { app } = await world(t)
  const response = await app.inject({ method: 'GET', url: '/api/nothing-here/' })
  t.equal(response.statusCode, 404)
  t.same(response.json(), { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })
})

t.test('a body that is not JSON gets a 400 parse error', async (t) => {
  const { app } = await world(t)
  app.post('/echo', async (request) => request.body)
  const response = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"name": ' })
  t.equal(response.statusCode, 400)
  t.match(response.json(), { type: 'validation_error', code: 'parse_error', attr: null })
})

t.test('a server error never shows its internals', async (t) => {
  const { app } = await world(t)
  app.get('/boom', async () => { throw new Error('secret database detail') })
  const response = await app.inject({ method: 'GET', url: '/boom' })
  t.equal(response.statusCode, 500)
  t.same(response.json(), { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null })
  t.notMatch(response.body, /secret/)
})

t.test('a body that fails its schema names the first bad field as PostHog does', async (t) => {
  const { app } = await world(t)
  const { z } = await import('zod')
  const schema = z.object({
    name: z.string(),
    level: z.enum(['21', '37']).optional(),
    tiles: z.array(z.object({ color: z.string() })).optional(),
  })
  app.post('/validate', { schema: { body: schema } }, async () => ({ ok: true }))
  const post = (payload: unknown) => app.inject({ method: 'POST', url: '/validate', payload: payload as object })
  t.same((await post({})).json(), { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'name' })
  t.same((await post({ name: null })).json(), { type: 'validation_error', code: 'null', detail: 'This field may not be null.', attr: 'name' })
  t.same((await post({ name: 'x', level: '5' })).json(), { type: 'validation_error', code: 'invalid_choice', detail: '"5" is not a valid choice.', attr: 'level' })
  const nested = await post({ name: 'x', tiles: [{ color: 3 }] })
  t.equal(nested.statusCode, 400)
  t.match(nested.json(), { type: 'validation_error', code: 'invalid_input', attr: 'tiles__0__color' })
  t.equal((await post({ name: 'x' })).statusCode, 200)
})

t.test('what the router refuses before any route runs is answered in PostHog\'s shape, without the path', async (t) => {
  const { app } = await world(t)
  const long = 'x'.repeat(8000)
  const tooLong = await app.inject({ method: 'GET', url: `/array/${long}/config` })
  t.equal(tooLong.statusCode, 414)
  t.same(tooLong.json(), { type: 'invalid_request', code: 'uri_too_long', detail: 'A segment of the path is too long.', attr: null })
  const badUrl = await app.inject({ method: 'GET', url: '/api/projects/%E0%A4%A/dashboards/' })
  t.equal(badUrl.statusCode, 400)
  t.same(badUrl.json(), { type: 'invalid_request', code: 'invalid_url', detail: 'The path is not valid percent-encoding.', attr: null })
})
