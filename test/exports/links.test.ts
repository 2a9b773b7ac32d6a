import t from 'tap'
import { assetLink } from '../../src/exports/link.js'
import { exportLinkSecret } from '../../src/exports/link-key.js'
import { context } from '../support/world.js'
import { exportsWorld, TRENDS } from './support/world.js'

const PUBLIC_URL = 'https://hedgelog.example.com/'

t.test('a signed link serves an export\'s content without a key until it expires', async (t) => {
  const w = await exportsWorld(t)
  const insight = await w.insight({ name: 'Weekly signups', query: TRENDS })
  const asset = (await w.api.post(w.base, { export_format: 'text/csv', insight: insight.id })).body
  const secret = await exportLinkSecret(w.log, context())
  t.equal(await exportLinkSecret(w.log, context()), secret, 'the installation has one key')
  const link = assetLink(PUBLIC_URL, asset, new Date(Date.now() + 3_600_000), secret)
  t.match(link, new RegExp(`^https://hedgelog\\.example\\.com/exporter/${asset.filename.replaceAll('.', '\\.')}\\?token=[\\w-]+\\.[\\w-]+\\.[\\w-]+$`))
  const path = link.slice('https://hedgelog.example.com'.length)
  const served = await w.app.inject({ method: 'GET', url: path })
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'text/csv')
  t.equal(served.payload, (await w.content(asset.id)).text)

  const expired = assetLink(PUBLIC_URL, asset, new Date(Date.now() - 1000), secret).slice('https://hedgelog.example.com'.length)
  const late = await w.app.inject({ method: 'GET', url: expired })
  t.equal(late.statusCode, 404)
  t.same(late.json(), { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })

  const token = new URL(link).searchParams.get('token')!
  const [header, payload] = token.split('.')
  const widened = Buffer.from(JSON.stringify({ id: asset.id, exp: 4_102_444_800, aud: 'posthog:exported_asset' })).toString('base64url')
  for (const forged of [`${header}.${widened}.${token.split('.')[2]}`, `${header}.${payload}.AAAA`, 'not-a-token']) {
    const refused = await w.app.inject({ method: 'GET', url: `/exporter/${asset.filename}?token=${forged}` })
    t.equal(refused.statusCode, 403, forged)
    t.same(refused.json(), { type: 'authentication_error', code: 'permission_denied', detail: 'The link is not valid.', attr: null })
  }
  const otherKey = assetLink(PUBLIC_URL, asset, new Date(Date.now() + 3_600_000), 'another-secret').slice('https://hedgelog.example.com'.length)
  t.equal((await w.app.inject({ method: 'GET', url: otherKey })).statusCode, 403, 'a link signed with another key is refused')
  t.equal((await w.app.inject({ method: 'GET', url: `/exporter/${asset.filename}` })).statusCode, 404, 'no token, nothing served')
})
