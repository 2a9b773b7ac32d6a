import t from 'tap'
import { decideConfig } from '../../src/decide/decide-config.js'
import { decideBody } from '../../src/decide/response-json.js'
import type { DecideFormat } from '../../src/decide/responses.js'
import type { EvaluationResult } from '../../src/decide/results.js'
import { evaluate } from './support/evaluate.js'
import { flag, seededRandom } from './support/flags.js'

const requestId = '0195ce5e-0000-7000-8000-000000000000'
const FORMATS: readonly DecideFormat[] = ['v1', 'v2', 'v3', 'detailed']

/** Every flag on (rollout 100) or off (rollout 0), so the values are known whatever the hash. */
const fixed = (keys: readonly string[], on: (key: string) => boolean, payload?: string): EvaluationResult =>
  evaluate(keys.map((key) => flag(key, { groups: [{ properties: [], rollout_percentage: on(key) ? 100 : 0 }], ...(payload ? { payloads: { true: payload } } : {}) })))

t.test('a body is the configuration\'s keys, when the route includes them, then the format\'s members', async (t) => {
  const result = fixed(['on', 'off'], (key) => key === 'on', '{"a": 1}')
  const options = { requestId, quotaLimited: ['feature_flags'] }
  t.equal(decideBody({ format: 'v1', includeConfig: false }, result, options), '{"featureFlags":["on"]}')
  t.equal(decideBody({ format: 'v2', includeConfig: false }, result, options), '{"featureFlags":{"on":true}}')
  t.equal(decideBody({ format: 'v3', includeConfig: false }, result, options),
    `{"featureFlags":{"on":true,"off":false},"featureFlagPayloads":{"on":"{\\"a\\": 1}"},"errorsWhileComputingFlags":false,"requestId":"${requestId}","quotaLimited":["feature_flags"]}`)
  const config = decideConfig({ heatmaps_opt_in: true })
  const configured = decideBody({ format: 'v3', includeConfig: true }, result, { config, requestId })
  t.ok(configured.startsWith(`{${JSON.stringify(config).slice(1, -1)},"featureFlags":{`), 'the configuration leads, in its own order')
  t.ok(configured.endsWith(`"errorsWhileComputingFlags":false,"requestId":"${requestId}"}`), 'no quotaLimited when none is given')
})

t.test('keys that are array indices come first in every map, ascending, as in an object; v1 lists keys as evaluated', async (t) => {
  const keys = ['zeta', '10', '__proto__', '2', '01', '4294967294', '4294967295', 'constructor', '0', '-1', '1e3', '7a', 'é"\\']
  const result = fixed(keys, () => true)
  const inMaps = ['0', '2', '10', '4294967294', 'zeta', '__proto__', '01', '4294967295', 'constructor', '-1', '1e3', '7a', 'é"\\']
  // The keys in the order the text has them, each followed by its value: `true`, or a detailed result.
  const written = (text: string, value: string): string[] =>
    [...text.matchAll(new RegExp(`"((?:[^"\\\\]|\\\\.)*)":${value}`, 'g'))].map((match) => JSON.parse(`"${match[1]}"`) as string)
  t.same(JSON.parse(decideBody({ format: 'v1', includeConfig: false }, result, { requestId })), { featureFlags: keys })
  t.same(written(decideBody({ format: 'v2', includeConfig: false }, result, { requestId }), 'true'), inMaps)
  t.same(written(decideBody({ format: 'v3', includeConfig: false }, result, { requestId }), 'true'), inMaps)
  t.same(written(decideBody({ format: 'detailed', includeConfig: false }, result, { requestId }), '\\{"key"'), inMaps)
})

t.test('keys, variants and payloads are JSON strings, escaped as JSON escapes them', async (t) => {
  const payload = '"sky"\n\u2028 ✓'
  const result = evaluate([
    flag('varié "quoted"', { groups: [{ properties: [], variant: 'blue\\' }], multivariate: { variants: [{ key: 'blue\\', rollout_percentage: 100 }] }, payloads: { 'blue\\': payload } }),
  ])
  for (const format of FORMATS) {
    const text = decideBody({ format, includeConfig: false }, result, { requestId })
    t.notMatch(text, '\n', `${format}: no raw line break`)
    t.match(text, '"varié \\"quoted\\""', `${format}: the key is escaped`)
  }
  const v3 = JSON.parse(decideBody({ format: 'v3', includeConfig: false }, result, { requestId })) as { featureFlags: object; featureFlagPayloads: object }
  t.same(v3.featureFlags, { 'varié "quoted"': 'blue\\' })
  t.same(v3.featureFlagPayloads, { 'varié "quoted"': payload })
})

t.test('random flag sets are written as the maps of their evaluations in every format', async (t) => {
  const random = seededRandom(7)
  for (let round = 0; round < 20; round++) {
    const keys = new Set<string>()
    while (keys.size < 1 + Math.floor(random() * 12)) keys.add(random() < 0.3 ? String(Math.floor(random() * 50)) : `flag-${Math.floor(random() * 1000)}`)
    const result = evaluate([...keys].map((key) => flag(key, {
      groups: [{ properties: [], rollout_percentage: Math.floor(random() * 101) }],
      ...(random() < 0.5 ? { multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] }, payloads: { a: 'x', b: '[1]' } } : { payloads: { true: 'true' } }),
    }, { version: Math.floor(random() * 5) })), { distinctId: `person-${round}` })
    const on = result.flags.filter((f) => f.value !== false)
    const parsed = (format: DecideFormat) => JSON.parse(decideBody({ format, includeConfig: false }, result, { requestId })) as Record<string, unknown>
    t.same(parsed('v1'), { featureFlags: on.map((f) => f.key) }, `round ${round} v1`)
    t.same(parsed('v2'), { featureFlags: Object.fromEntries(on.map((f) => [f.key, f.value])) }, `round ${round} v2`)
    t.same(parsed('v3'), {
      featureFlags: Object.fromEntries(result.flags.map((f) => [f.key, f.value])),
      featureFlagPayloads: Object.fromEntries(on.filter((f) => f.payload !== null).map((f) => [f.key, f.payload])),
      errorsWhileComputingFlags: false,
      requestId,
    }, `round ${round} v3`)
    t.same(parsed('detailed'), {
      flags: Object.fromEntries(result.flags.map((f) => [f.key, {
        key: f.key, enabled: f.value !== false, variant: typeof f.value === 'string' ? f.value : null, reason: { ...f.reason },
        metadata: { id: f.id, version: f.version, description: null, payload: f.value === false ? null : f.payload },
      }])),
      errorsWhileComputingFlags: false,
      requestId,
    }, `round ${round} detailed`)
  }
})
