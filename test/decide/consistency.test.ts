import t from 'tap'
import { compileFlags } from '../../src/decide/compile.js'
import { evaluateFlags } from '../../src/decide/evaluate.js'
import { flag } from './support/flags.js'
import { startOracle } from './support/posthog-oracle.js'

// PostHog's cross-SDK consistency vectors: ids distinct_id_0 … distinct_id_999, no properties.
const simple = flag('simple-flag', { groups: [{ properties: [], rollout_percentage: 45 }] })
const multivariate = flag('multivariate-flag', {
  groups: [{ properties: [], rollout_percentage: 55 }],
  multivariate: {
    variants: [
      { key: 'first-variant', name: 'First Variant', rollout_percentage: 50 },
      { key: 'second-variant', name: 'Second Variant', rollout_percentage: 20 },
      { key: 'third-variant', name: 'Third Variant', rollout_percentage: 20 },
      { key: 'fourth-variant', name: 'Fourth Variant', rollout_percentage: 5 },
      { key: 'fifth-variant', name: 'Fifth Variant', rollout_percentage: 5 },
    ],
  },
})
const definitions = { flags: [simple, multivariate] }
const ids = Array.from({ length: 1000 }, (_, i) => `distinct_id_${i}`)
const compiled = compileFlags(definitions)
const ours = ids.map((distinctId) => evaluateFlags({ definitions: compiled, distinctId, now: 0 }).flags)
const valueOf = (i: number, key: string) => ours[i]!.find((f) => f.key === key)!.value

// The first 40 entries of the published arrays, written compactly: t/f, and variant numbers (0 = false).
const SIMPLE_HEAD = 'fttftfftftfttftfffttftfftfttfffttttfffff'
const MULTI_HEAD = '2210021000130121004103000111111303210300'
const VARIANTS = [false, 'first-variant', 'second-variant', 'third-variant', 'fourth-variant', 'fifth-variant']

t.test('the 45% simple flag is on for exactly 446 of the 1000 ids', async (t) => {
  t.equal(ids.filter((_, i) => valueOf(i, 'simple-flag') === true).length, 446)
  t.same(ids.slice(0, 40).map((_, i) => (valueOf(i, 'simple-flag') ? 't' : 'f')).join(''), SIMPLE_HEAD)
  t.same([997, 998, 999].map((i) => valueOf(i, 'simple-flag')), [false, true, true], 'and its last three entries')
})

t.test('the 55% multivariate flag splits the ids as the published vector does', async (t) => {
  const counts: Record<string, number> = {}
  for (let i = 0; i < ids.length; i++) {
    const value = String(valueOf(i, 'multivariate-flag'))
    counts[value] = (counts[value] ?? 0) + 1
  }
  t.same(counts, { false: 444, 'first-variant': 290, 'second-variant': 110, 'third-variant': 111, 'fourth-variant': 24, 'fifth-variant': 21 })
  t.same(ids.slice(0, 40).map((_, i) => valueOf(i, 'multivariate-flag')), [...MULTI_HEAD].map((digit) => VARIANTS[Number(digit)]))
})

t.test('every one of the 1000 values equals posthog-node 4.10.2 local evaluation', async (t) => {
  const oracle = await startOracle(t, definitions)
  const mismatches: string[] = []
  for (let i = 0; i < ids.length; i++) {
    for (const key of ['simple-flag', 'multivariate-flag']) {
      const expected = await oracle.flag(key, ids[i]!)
      if (expected !== valueOf(i, key)) mismatches.push(`${key} ${ids[i]}: ${String(expected)} ≠ ${String(valueOf(i, key))}`)
    }
  }
  t.same(mismatches, [])
})
