import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { paginated } from '../../src/http/pagination.js'

const request = (host: string, url = '/api/projects/1/persons/?distinct_id=ada'): FastifyRequest =>
  ({ url, headers: {}, protocol: 'http', host }) as unknown as FastifyRequest

t.test('a page that links nowhere is answered as before for every Host: a Host no URL can have still fails', async (t) => {
  const page = { limit: 100, offset: 0 }
  for (let round = 0; round < 2; round++) {
    t.same(paginated(request('localhost:8000'), page, 1, ['x']), { count: 1, next: null, previous: null, results: ['x'] })
    t.throws(() => paginated(request('a b'), page, 1, ['x']), { code: 'ERR_INVALID_URL' }, `a Host with a space, round ${round}`)
    t.throws(() => paginated(request('[bad'), page, 0, []), { code: 'ERR_INVALID_URL' })
    t.throws(() => paginated(request('localhost:99999'), page, 0, []), { code: 'ERR_INVALID_URL' }, 'a port out of range')
    // A good Host, but a path that names another host, as URL reads a backslash after the slash.
    t.throws(() => paginated(request('localhost:8000', '/\\[bad/persons/'), page, 0, []), { code: 'ERR_INVALID_URL' })
    t.throws(() => paginated(request('localhost:8000', '//[bad/persons/'), page, 0, []), { code: 'ERR_INVALID_URL' })
  }
  t.equal(paginated(request('localhost:8000', '/p/?limit=1'), { limit: 1, offset: 0 }, 2, ['x']).next, 'http://localhost:8000/p/?limit=1&offset=1')
})
