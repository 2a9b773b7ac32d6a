import t from 'tap'
import { world } from '../support/world.js'

/** A JSON text nested `depth` levels, objects and arrays in turn (built as text: too deep to stringify). */
const nestedText = (depth: number): string => {
  let open = ''
  let close = ''
  for (let i = 0; i < depth; i++) {
    if (i % 2 === 0) { open += '{"a":'; close = `}${close}` } else { open += '['; close = `]${close}` }
  }
  return `${open}1${close}`
}

const DRF_PARSE_ERROR = { type: 'validation_error', code: 'parse_error', attr: null }

t.test('management writes nested 1,000 levels deep are refused at the door, and the environment keeps working', async (t) => {
  const w = await world(t)
  const headers = { ...w.bearer(w.key.value), 'content-type': 'application/json' }
  const env = `/api/environments/${w.installation.environment_id}`
  const dashboard = (await w.app.inject({ method: 'POST', url: `${env}/dashboards/`, headers, payload: { name: 'd' } })).json() as { id: number }
  const deep = nestedText(1000)

  await t.test('given a dashboard, when its filters are nested 1,000 levels on create or PATCH, then both answer a DRF 400', async (t) => {
    for (const [method, url] of [['POST', `${env}/dashboards/`], ['PATCH', `${env}/dashboards/${dashboard.id}/`]] as const) {
      const response = await w.app.inject({ method, url, headers, payload: `{"name":"deep","filters":${deep}}` })
      t.equal(response.statusCode, 400, `${method} is refused`)
      t.match(response.json(), DRF_PARSE_ERROR)
    }
    const after = await w.app.inject({ method: 'GET', url: `${env}/dashboards/${dashboard.id}/`, headers })
    t.equal(after.json().name, 'd', 'the dashboard is unchanged')
  })

  await t.test('given an environment, when its test_account_filters are nested 1,000 levels, then PATCH answers a DRF 400', async (t) => {
    const response = await w.app.inject({ method: 'PATCH', url: `${env}/`, headers, payload: `{"test_account_filters":[${deep}]}` })
    t.equal(response.statusCode, 400)
    t.match(response.json(), DRF_PARSE_ERROR)
  })

  await t.test('given those refusals, when the token is reset, then the new token is answered and works, and the old one no longer does', async (t) => {
    const before = (await w.app.inject({ method: 'GET', url: `${env}/`, headers })).json() as { api_token: string }
    const reset = await w.app.inject({ method: 'PATCH', url: `${env}/reset_token/`, headers, payload: {} })
    t.equal(reset.statusCode, 200)
    const token = (reset.json() as { api_token: string }).api_token
    t.not(token, before.api_token, 'a new token')
    const capture = (api_key: string) => w.app.inject({ method: 'POST', url: '/capture/', payload: { api_key, event: 'e', distinct_id: 'u' } })
    t.equal((await capture(token)).statusCode, 200, 'the new token captures')
    t.equal((await capture(before.api_token)).statusCode, 403, 'the old one is refused')
    const health = await w.app.inject({ method: 'GET', url: '/_health' })
    t.equal(health.statusCode, 200, 'every projection is healthy')
  })
})
