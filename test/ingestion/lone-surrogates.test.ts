import t, { type Test } from 'tap'
import { isUtf8 } from 'node:buffer'
import LZString from 'lz-string'
import { escapesSurrogates, wellFormedJson } from '../../src/kernel/well-formed.js'
import { exportEvents } from '../../src/migration/export.js'
import { importEvents } from '../../src/migration/import.js'
import { world } from '../support/world.js'
import { CAPTURED_COLLECTIONS } from '../projections/support/captured.js'

const LONE_HIGH = '\ud800'
const LONE_LOW = '\udfff'
const FFFD = '\ufffd'

/** Every string of a parsed value, keys included. */
const stringsOf = (value: unknown): string[] => {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(stringsOf)
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)])
  return []
}

/**
 * What a strict reader asks of an answer: UTF-8 bytes, JSON, and no string that a UTF-8 encoder
 * would have to refuse (`"\ud800"` is legal JSON syntax, but no UTF-8 text can hold it).
 */
const strictlyParsed = (t: Test, raw: Buffer): any => {
  t.ok(isUtf8(raw), 'the answer is valid UTF-8')
  const parsed: unknown = JSON.parse(raw.toString('utf8'))
  const broken = stringsOf(parsed).filter((s) => !s.isWellFormed())
  t.same(broken, [], 'no string holds a lone surrogate')
  return parsed
}

t.test('lone surrogates sent to /capture/, /batch/ (realtime and historical) and lz64 are stored as U+FFFD', async (t) => {
  const { app, log, models, installation, key, bearer } = await world(t)
  const token = installation.project_api_key
  const post = async (url: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const response = await app.inject({ method: 'POST', url, payload: body, headers })
    t.equal(response.statusCode, 200, `${url} accepted it: ${response.body}`)
  }
  // JSON.stringify writes each lone surrogate as a `\ud800` escape, as a client would send it.
  await post('/capture/', JSON.stringify({
    api_key: token, event: `clicked ${LONE_HIGH}`, distinct_id: `single-${LONE_LOW}`,
    properties: { [`key-${LONE_HIGH}`]: `value-${LONE_LOW}`, nested: { deep: [{ list: [`x${LONE_HIGH}y`] }] }, $groups: { company: `acme-${LONE_HIGH}` } },
    $set: { [`name-${LONE_LOW}`]: `Ada ${LONE_HIGH}` },
  }))
  await post('/batch/', JSON.stringify({
    api_key: token,
    batch: [{ event: 'batched', distinct_id: `batch-${LONE_HIGH}`, properties: { $set_once: { [`first-${LONE_HIGH}`]: LONE_LOW } } }],
  }))
  await post('/batch/', JSON.stringify({
    api_key: token, historical_migration: true,
    batch: [{ event: 'migrated', distinct_id: `old-${LONE_LOW}`, timestamp: '2024-01-01T00:00:00Z', properties: { note: `from ${LONE_HIGH} before` } }],
  }))
  await post('/e/?compression=lz64', `data=${encodeURIComponent(LZString.compressToBase64(JSON.stringify([
    { event: 'lz', properties: { token, distinct_id: 'lz-user', raw: `raw ${LONE_HIGH}` } },
  ])))}`, { 'content-type': 'application/x-www-form-urlencoded' })
  t.ok(await models.waitFor((await log.headPosition())!, CAPTURED_COLLECTIONS, 10_000), 'projections caught up')

  const get = (path: string) => app.inject({ method: 'GET', url: `/api/projects/${installation.environment_id}${path}`, headers: bearer(key.value) })
  const events = strictlyParsed(t, (await get('/events/')).rawPayload)
  const byName = Object.fromEntries(events.results.map((e: { event: string }) => [e.event, e]))
  t.same(Object.keys(byName).sort(), [`clicked ${FFFD}`, 'batched', 'lz', 'migrated'].sort())
  const clicked = byName[`clicked ${FFFD}`]
  t.equal(clicked.distinct_id, `single-${FFFD}`)
  t.equal(clicked.properties[`key-${FFFD}`], `value-${FFFD}`)
  t.same(clicked.properties.nested, { deep: [{ list: [`x${FFFD}y`] }] })
  t.equal(clicked.properties.$group_0, `acme-${FFFD}`)
  t.equal(byName.batched.distinct_id, `batch-${FFFD}`)
  t.equal(byName.migrated.distinct_id, `old-${FFFD}`)
  t.equal(byName.migrated.properties.note, `from ${FFFD} before`)
  t.equal(byName.lz.properties.raw, `raw ${FFFD}`)

  const persons = strictlyParsed(t, (await get('/persons/')).rawPayload)
  const person = (id: string) => persons.results.find((p: { distinct_ids: string[] }) => p.distinct_ids.includes(id))
  t.match(person(`single-${FFFD}`)?.properties, { [`name-${FFFD}`]: `Ada ${FFFD}` })
  t.match(person(`batch-${FFFD}`)?.properties, { [`first-${FFFD}`]: FFFD })
  strictlyParsed(t, (await get('/groups/?group_type_index=0')).rawPayload)
})

t.test('hedgelog import stores lone surrogates of its lines as U+FFFD, and export gives them back well-formed', async (t) => {
  const { log, installation } = await world(t)
  const environmentId = installation.environment_id
  const line = JSON.stringify({ event: `imported ${LONE_LOW}`, distinct_id: `${LONE_HIGH}-id`, timestamp: '2024-01-01T00:00:00Z', properties: { [LONE_HIGH]: [LONE_LOW] } })
  const result = await importEvents({ log, environmentId }, (async function* () { yield line })())
  t.equal(result.written, 1)
  const exported: unknown[] = []
  for await (const event of exportEvents(log, { environmentId })) exported.push(event)
  t.same(stringsOf(exported).filter((s) => !s.isWellFormed()), [])
  t.match(exported, [{ event: `imported ${FFFD}`, distinct_id: `${FFFD}-id`, properties: { [FFFD]: [FFFD] } }])
})

t.test('the text check finds every lone surrogate escape and passes over pairs and texts without one', async (t) => {
  t.ok(escapesSurrogates(JSON.stringify(LONE_HIGH)), 'a lone high surrogate')
  t.ok(escapesSurrogates(JSON.stringify(LONE_LOW)), 'a lone low surrogate')
  t.ok(escapesSurrogates('"\\uDC00"'), 'upper case')
  t.ok(escapesSurrogates('"\\ud800\\u0041"'), 'a high surrogate followed by another escape')
  t.ok(escapesSurrogates('"\\ud83d\\ud83d\\ude00"'), 'two highs before one low')
  t.ok(escapesSurrogates('"\\\\\\ud800"'), 'an escaped backslash before a real escape')
  t.ok(escapesSurrogates('"\\\\ud83d\\udc00"'), 'a literal backslash-u text does not pair with the real low escape after it')
  t.notOk(escapesSurrogates('"\\ud83d\\ude00 and \\uD83D\\uDE00"'), 'pairs, as Python escapes emoji')
  t.notOk(escapesSurrogates('"\\\\ud800"'), 'an escaped backslash followed by the letters ud800')
  t.notOk(escapesSurrogates(JSON.stringify({ plain: 'text é 😀', escaped: '\\u00e9' })))
  t.notOk(escapesSurrogates('"\\u00e9 \\uD7FF \\uE000"'))
  for (const text of ['"\\ud800"', '"\\ud83d\\ude00"', '"\\\\ud800"', '"\\\\ud83d\\udc00"', '"a\\ud800\\u0041"']) {
    const parsed = JSON.parse(text) as string
    t.equal(escapesSurrogates(text), !parsed.isWellFormed(), `${text} agrees with what it parses to`)
  }
})

t.test('on random escape-heavy texts, the check agrees with what they parse to', async (t) => {
  const pieces = ['\\ud83d', '\\ude00', '\\uDBFF', '\\uDC00', '\\\\', 'u', 'd800', '\\u0041', 'a', '\\n', '😀']
  let seed = 7
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed
  }
  const disagreements: string[] = []
  for (let i = 0; i < 3000; i++) {
    const text = `"${Array.from({ length: 1 + (next() % 8) }, () => pieces[next() % pieces.length]).join('')}"`
    const parsed = JSON.parse(text) as string
    if (escapesSurrogates(text) !== !parsed.isWellFormed()) disagreements.push(text)
  }
  t.same(disagreements, [])
})

t.test('repairing a parsed value copies only what changes and keeps keys plain', async (t) => {
  const clean = { a: ['x', { b: 1 }], c: null }
  t.equal(wellFormedJson(clean), clean, 'a clean value is the same object')
  const parsed = JSON.parse(`{"__proto__": {"k": "\\ud800"}, "same": {"v": 1}, "list": ["ok", "\\udc00"]}`) as Record<string, unknown>
  const fixed = wellFormedJson(parsed) as Record<string, any>
  t.same(Object.getPrototypeOf(fixed), Object.prototype, 'a __proto__ key stays a key')
  t.same(Object.getOwnPropertyDescriptor(fixed, '__proto__')?.value, { k: FFFD })
  t.equal(fixed['same'], parsed['same'], 'unchanged branches are shared')
  t.same(fixed['list'], ['ok', FFFD])
  t.same(parsed['list'], ['ok', '\udc00'], 'the input is left as it was')
  t.same(wellFormedJson(JSON.parse(`{"\\ud800": 1, "\\udbff": 2}`)), { [FFFD]: 2 }, 'keys that become equal keep the later value')
})
