import t from 'tap'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { compilePattern, patternProblem } from '../../src/decide/regex.js'
import { decideWorld } from './support/decide-world.js'

const nested = { key: 'a', operator: 'regex', value: '(a+)+$', type: 'person' }
const evil = `${'a'.repeat(5000)}!`

t.test('a pattern that backtracks exponentially elsewhere is matched in linear time', async (t) => {
  const pattern = compilePattern('(a+)+$')!
  const started = performance.now()
  t.equal(pattern.test(evil), false, '"$" needs a run of "a" at the very end, and "!" is there')
  t.equal(pattern.test('xaaa'), true)
  t.ok(performance.now() - started < 1000)
})

t.test('the engine keeps PostHog\'s regex syntax: inline flags, escapes, unanchored search', async (t) => {
  t.ok(compilePattern('(?i)^VALUE')!.test('value'))
  t.ok(compilePattern('^a\\-b$')!.test('a-b'))
  t.ok(compilePattern('\\.com$')!.test('x.com'))
  t.notOk(compilePattern('\\.com$')!.test('.com343'))
  t.equal(compilePattern('('), null)
  t.equal(compilePattern('(?=a)'), null, 'look-around is not linear-time and is refused')
  t.equal(compilePattern('(a)\\1'), null, 'backreferences are refused')
  t.match(patternProblem('(?<=a)b'), /unsupported|invalid/)
  t.equal(patternProblem('^[a-m]'), null)
})

t.test('decide answers the poisonous regex reproduction at once and keeps serving others', async (t) => {
  const w = await decideWorld(t)
  await w.createFlag('typo', { groups: [{ properties: [nested], rollout_percentage: 100 }] })
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const health = fetch(`${w.address}/_health`).then((response) => response.status)
  const started = performance.now()
  const response = await fetch(`${w.address}/decide/?v=3`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: w.token, distinct_id: 'u1', person_properties: { a: evil } }),
  })
  const elapsed = performance.now() - started
  delay.disable()
  t.equal(response.status, 200)
  const body = (await response.json()) as { featureFlags: Record<string, unknown> }
  t.equal(body.featureFlags.typo, false, '"$" needs the run of "a" at the very end, and "!" is there')
  t.equal(await health, 200, 'a concurrent health check is answered')
  t.ok(elapsed < 2000, `decide answered in ${elapsed.toFixed(0)} ms`)
  t.ok(delay.max / 1e6 < 500, `the event loop was never held for long (max delay ${(delay.max / 1e6).toFixed(0)} ms)`)
})

t.test('the flag API refuses a pattern the engine cannot run, with a validation error on filters', async (t) => {
  const w = await decideWorld(t)
  for (const value of ['(', '(?=a)b', '(x)\\1']) {
    const response = await w.api.post(`/api/projects/${w.installation.project_id}/feature_flags/`, {
      key: 'bad', filters: { groups: [{ properties: [{ key: 'a', operator: 'regex', value, type: 'person' }] }] },
    })
    t.equal(response.status, 400, value)
    t.match(response.body, { type: 'validation_error', code: 'invalid_input', attr: 'filters', detail: /^Invalid regex pattern for a: / }, value)
  }
  const created = await w.createFlag('good', { groups: [{ properties: [{ key: 'a', operator: 'not_regex', value: '(a+)+$', type: 'person' }] }] })
  const patched = await w.api.patch(`/api/projects/${w.installation.project_id}/feature_flags/${created.id}/`, {
    filters: { groups: [{ properties: [{ key: 'a', operator: 'not_regex', value: '(?!x)', type: 'person' }] }] },
  })
  t.equal(patched.status, 400, 'PATCH is checked the same way')
})
