import t from 'tap'
import { decideConfig } from '../../src/decide/decide-config.js'
import { decideBody, type DecideBodyOptions } from '../../src/decide/response-json.js'
import { decideVersion, type DecideFormat } from '../../src/decide/responses.js'
import { emptyEvaluation, type EvaluationResult } from '../../src/decide/results.js'
import { evaluate } from './support/evaluate.js'
import { flag } from './support/flags.js'

const result = evaluate([
  flag('on', { groups: [{ properties: [] }], payloads: { true: '{"a": 1}' } }, { id: 11, version: 3 }),
  flag('off', { groups: [{ properties: [], rollout_percentage: 0 }], payloads: { true: '1' } }, { id: 12 }),
  flag('variant', { groups: [{ properties: [], variant: 'blue' }], multivariate: { variants: [{ key: 'blue', rollout_percentage: 100 }] }, payloads: { blue: '"sky"' } }, { id: 13 }),
], { distinctId: 'person' })
const requestId = '0195ce5e-0000-7000-8000-000000000000'
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T
/** The body a route without the configuration keys answers, parsed. */
const body = (format: DecideFormat, evaluation: EvaluationResult, options: Partial<DecideBodyOptions> = {}): Record<string, unknown> =>
  JSON.parse(decideBody({ format, includeConfig: options.config !== undefined }, evaluation, { requestId, ...options })) as Record<string, unknown>

t.test('decideVersion routes /decide by v and /flags by v and config', async (t) => {
  const cases: Array<[string, Record<string, unknown>, string, boolean]> = [
    ['/decide/', {}, 'v1', true], ['/decide', { v: '1' }, 'v1', true], ['/decide/', { v: 'x' }, 'v1', true],
    ['/decide/', { v: '2' }, 'v2', true], ['/decide/', { v: '3' }, 'v3', true], ['/decide/', { v: ['3', '4'] }, 'v3', true],
    ['/decide/', { v: '4' }, 'detailed', true], ['/decide/', { v: '7' }, 'detailed', true],
    ['/flags', {}, 'detailed', true], ['/flags/', { v: '1' }, 'v3', false], ['/flags/', { v: '2' }, 'detailed', false],
    ['/flags/', { v: '2', config: 'true' }, 'detailed', true], ['/flags/', { config: 'true' }, 'v3', true], ['/flags/?v=2', { v: '2' }, 'detailed', false],
  ]
  for (const [path, query, format, includeConfig] of cases) t.same(decideVersion(path, query), { format, includeConfig }, `${path} ${JSON.stringify(query)}`)
})

t.test('v1 lists enabled keys, v2 maps enabled flags only', async (t) => {
  t.same(body('v1', result), { featureFlags: ['on', 'variant'] })
  t.same(body('v2', result), { featureFlags: { on: true, variant: 'blue' } })
})

t.test('v3 carries the config keys, every flag, matched payloads and the errors flag', async (t) => {
  t.same(body('v3', result, { config: decideConfig() }), {
    config: { enable_collect_everything: true },
    toolbarParams: {},
    isAuthenticated: false,
    supportedCompression: ['gzip', 'gzip-js', 'lz64'],
    sessionRecording: false,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    elementsChainAsString: true,
    surveys: false,
    heatmaps: false,
    flagsPersistenceDefault: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
    featureFlags: { on: true, off: false, variant: 'blue' },
    featureFlagPayloads: { on: '{"a": 1}', variant: '"sky"' },
    errorsWhileComputingFlags: false,
    requestId,
  })
  t.same(body('v3', emptyEvaluation(), { quotaLimited: ['feature_flags'] }),
    { featureFlags: {}, featureFlagPayloads: {}, errorsWhileComputingFlags: false, requestId, quotaLimited: ['feature_flags'] })
})

t.test('the detailed format reports value, reason and metadata per flag', async (t) => {
  t.same(body('detailed', result), {
    flags: {
      on: { key: 'on', enabled: true, variant: null, reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' }, metadata: { id: 11, version: 3, description: null, payload: '{"a": 1}' } },
      off: { key: 'off', enabled: false, variant: null, reason: { code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' }, metadata: { id: 12, version: 1, description: null, payload: null } },
      variant: { key: 'variant', enabled: true, variant: 'blue', reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' }, metadata: { id: 13, version: 1, description: null, payload: '"sky"' } },
    },
    errorsWhileComputingFlags: false,
    requestId,
  })
})

t.test('decideBody leaves config out when the route does not include it', async (t) => {
  const config = decideConfig()
  t.notOk('toolbarParams' in JSON.parse(decideBody({ format: 'v3', includeConfig: false }, result, { config, requestId })))
  t.ok('toolbarParams' in JSON.parse(decideBody({ format: 'detailed', includeConfig: true }, result, { config, requestId })))
  t.same(JSON.parse(decideBody({ format: 'v1', includeConfig: false }, result, { config, requestId })), { featureFlags: ['on', 'variant'] })
})

t.test('a flag keyed __proto__ is an ordinary entry of the maps', async (t) => {
  const tricky = evaluate([flag('__proto__', { groups: [{ properties: [] }] })])
  t.same(body('v3', tricky)['featureFlags'], JSON.parse('{"__proto__": true}'))
})

t.test('environment settings switch on recordings, performance and exceptions', async (t) => {
  const config = plain(decideConfig({
    session_recording_opt_in: true,
    capture_console_log_opt_in: false,
    session_recording_sample_rate: '0.50',
    session_recording_linked_flag: { key: 'rec', variant: 'on' },
    capture_performance_opt_in: true,
    autocapture_exceptions_opt_in: true,
    autocapture_opt_out: true,
    surveys_opt_in: true,
  }))
  t.match(config, {
    sessionRecording: { endpoint: '/s/', consoleLogRecordingEnabled: false, recorderVersion: 'v2', sampleRate: '0.50', linkedFlag: { flag: 'rec', variant: 'on' } },
    capturePerformance: { network_timing: true, web_vitals: false },
    autocaptureExceptions: { endpoint: '/e/' },
    autocapture_opt_out: true,
    surveys: true,
  })
})
