import t from 'tap'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { buildApp } from '../../src/app.js'
import { redactUrl } from '../../src/http/request-log.js'
import { world } from '../support/world.js'

t.test('keys and tokens in a query string are redacted', async (t) => {
  t.equal(redactUrl('/api/users/@me/?personal_api_key=phx_secret&x=1'), '/api/users/@me/?personal_api_key=[redacted]&x=1')
  t.equal(redactUrl('/decide/?v=3&token=phc_abc'), '/decide/?v=3&token=[redacted]')
  t.equal(redactUrl('/e/?ip=1&api_key=phc_abc#x'), '/e/?ip=1&api_key=[redacted]#x')
  t.equal(redactUrl('/api/?access_token=keep'), '/api/?access_token=keep', 'only the exact parameter names')
  t.equal(redactUrl('/api/users/@me/?personal%5Fapi%5Fkey=phx_secret'), '/api/users/@me/?personal%5Fapi%5Fkey=[redacted]', 'names are decoded first')
  t.equal(redactUrl('/e/?data=eyJ0b2tlbiI6InBoY19hYmMifQ%3D%3D&ip=1'), '/e/?data=[redacted]&ip=1', 'ingestion payloads carry the token')
  t.equal(redactUrl('/x/?anything=phc_abc&y=2'), '/x/?anything=[redacted]&y=2', 'a key or token is redacted under any name')
  t.equal(redactUrl('/x/?q=%E0%A4%A'), '/x/?q=%E0%A4%A', 'malformed escapes are left as they are')
  t.equal(redactUrl('/array/phc_abc/config?x=1'), '/array/[redacted]/config?x=1', 'a token in the path')
  t.equal(redactUrl('/array/phc%5Fabc/config.js'), '/array/[redacted]/config.js', 'an encoded token in a path without a query')
})

t.test('request logs never carry the key a client sent in the URL', async (t) => {
  const { log, store, models, projections, key } = await world(t)
  const lines: string[] = []
  const logger = pino({ level: 'info' }, new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done() } }))
  const app = await buildApp({ log, store, models, projections, roles: ['api'], logger })
  t.teardown(() => app.close())
  const response = await app.inject({ method: 'GET', url: `/api/users/@me/?personal_api_key=${key.value}` })
  t.equal(response.statusCode, 200)
  t.ok(lines.some((line) => line.includes('"url":"/api/users/@me/?personal_api_key=[redacted]"')), 'the request is logged')
  t.notOk(lines.some((line) => line.includes(key.value)), 'the key is not')
})
