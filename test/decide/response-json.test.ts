import t, { type Test } from 'tap'
import { decideConfig } from '../../src/decide/decide-config.js'
import { decideBody, type DecideFormat } from '../../src/decide/responses.js'
import { decideBodyJson } from '../../src/decide/response-json.js'
import { emptyEvaluation, type EvaluationResult } from '../../src/decide/results.js'
import { evaluate } from './support/evaluate.js'
import { flag, seededRandom } from './support/flags.js'

const requestId = '0195ce5e-0000-7000-8000-000000000000'
const FORMATS: readonly DecideFormat[] = ['v1', 'v2', 'v3', 'detailed']

/** Every format, with and without config and quota limits, against the JSON of `decideBody`. */
const sameAsObjects = (t: Test, result: EvaluationResult, label: string): void => {
  const configs = [null, decideConfig(), decideConfig({ session_recording_opt_in: true, session_recording_sample_rate: '0.5', heatmaps_opt_in: true })]
  for (const format of FORMATS) {
    for (const includeConfig of [true, false]) {
      for (const config of configs) {
        for (const quotaLimited of [undefined, [], ['feature_flags', 'recordings']]) {
          const options = { config, requestId, ...(quotaLimited ? { quotaLimited } : {}) }
          const routing = { format, includeConfig }
          t.equal(decideBodyJson(routing, result, options), JSON.stringify(decideBody(routing, result, options)), `${label} ${format} config ${includeConfig}`)
        }
      }
    }
  }
}

t.test('the written text is the JSON of the body objects, byte for byte', async (t) => {
  const result = evaluate([
    flag('on', { groups: [{ properties: [] }], payloads: { true: '{"a": 1}' } }, { id: 11, version: 3 }),
    flag('off', { groups: [{ properties: [], rollout_percentage: 0 }], payloads: { true: '1' } }, { id: 12 }),
    flag('variant', { groups: [{ properties: [], variant: 'blue' }], multivariate: { variants: [{ key: 'blue', rollout_percentage: 100 }] }, payloads: { blue: '"sky"\n\u2028' } }),
    flag('unmatched', { groups: [{ properties: [{ key: 'plan', operator: 'exact', value: 'pro', type: 'person' }] }] }),
  ], { distinctId: 'person' })
  sameAsObjects(t, result, 'plain keys')
  sameAsObjects(t, emptyEvaluation(), 'no flags')
})

t.test('keys that are array indices come first, in ascending order, as object keys enumerate', async (t) => {
  const keys = ['zeta', '10', '__proto__', '2', '01', '4294967294', '4294967295', 'constructor', '0', '-1', '1e3', '7a', 'é"\\']
  const result = evaluate(keys.map((key, i) => flag(key, { groups: [{ properties: [], rollout_percentage: (i * 37) % 101 }], payloads: { true: `{"n": ${i}}` } })))
  sameAsObjects(t, result, 'index keys')
})

t.test('random flag sets agree in every format', async (t) => {
  const random = seededRandom(7)
  for (let round = 0; round < 20; round++) {
    const keys = new Set<string>()
    while (keys.size < 1 + Math.floor(random() * 12)) keys.add(random() < 0.3 ? String(Math.floor(random() * 50)) : `flag-${Math.floor(random() * 1000)}`)
    const result = evaluate([...keys].map((key) => flag(key, {
      groups: [{ properties: [], rollout_percentage: Math.floor(random() * 101) }],
      ...(random() < 0.5 ? { multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] }, payloads: { a: 'x', b: '[1]' } } : { payloads: { true: 'true' } }),
    }, { version: Math.floor(random() * 5) })), { distinctId: `person-${round}` })
    sameAsObjects(t, result, `round ${round}`)
  }
})
