import t from 'tap'
import { world } from '../support/world.js'

t.test('a repeated query parameter counts with its last value, as Django reads it, on every route', async (t) => {
  const w = await world(t)
  const pid = w.installation.project_id
  await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/feature_flags/`, headers: w.bearer(w.key.value), payload: { key: 'beta-flag', filters: { groups: [{ rollout_percentage: 10 }] } } })
  const listed = await w.app.inject({ method: 'GET', url: `/api/projects/${pid}/feature_flags/?search=nothing&search=beta&limit=1&limit=5`, headers: w.bearer(w.key.value) })
  t.equal(listed.statusCode, 200)
  t.same(listed.json().results.map((f: { key: string }) => f.key), ['beta-flag'])
  for (const url of [`/api/projects/${pid}/dashboards/?tags=a&tags=b`, `/api/projects/${pid}/events/?event=a&event=b`, `/api/projects/${pid}/persons/?distinct_id=a&distinct_id=b`]) {
    t.equal((await w.app.inject({ method: 'GET', url, headers: w.bearer(w.key.value) })).statusCode, 200, url)
  }
  const captured = await w.app.inject({ method: 'GET', url: `/e/?data=x&data=${encodeURIComponent(Buffer.from(JSON.stringify({ api_key: w.installation.project_api_key, event: 'e', distinct_id: 'd' })).toString('base64'))}` })
  t.equal(captured.statusCode, 200, 'capture reads the last data parameter too')
})
