import type { FlagDefinitionSet, PropertyFilter } from '../../../src/decide/definitions.js'
import { flag } from './flags.js'

const person = (key: string, operator: string, value: PropertyFilter['value']): PropertyFilter => ({ key, operator, value, type: 'person' })

/**
 * Flags on which posthog-node 4.10.2's local evaluation and PostHog's server agree when every
 * property they read is supplied: each operator the SDK knows, rollouts, variants, overrides,
 * payloads, cohorts and a group flag. Left out, because the two differ there: string values
 * under gt/gte/lt/lte, non-ASCII text, null values, missing properties, is_not_set, month/year
 * relative dates, semver, is_date_exact, prefix/suffix operators, flag dependencies, super
 * conditions, holdouts and experience continuity.
 */
export const differentialDefinitions: FlagDefinitionSet = {
  group_type_mapping: { '0': 'company' },
  cohorts: {
    '7': {
      type: 'OR',
      values: [
        { type: 'AND', values: [person('plan', 'exact', ['pro', 'enterprise']), { ...person('email', 'icontains', 'example'), negation: true }] },
        { type: 'AND', values: [person('age', 'gte', '60')] },
      ],
    },
  },
  flags: [
    flag('rollout-only', { groups: [{ properties: [], rollout_percentage: 30 }] }),
    flag('rollout-zero', { groups: [{ properties: [], rollout_percentage: 0 }] }),
    flag('rollout-full', { groups: [{ properties: [], rollout_percentage: null }], payloads: { true: '{"full": true}' } }),
    flag('multivariate', {
      groups: [{ properties: [], rollout_percentage: 70 }],
      multivariate: { variants: [{ key: 'control', rollout_percentage: 34 }, { key: 'test', rollout_percentage: 33 }, { key: 'test-2', rollout_percentage: 33 }] },
      payloads: { control: '"c"', test: '{"color": "blue"}' },
    }),
    flag('variants-short', { groups: [{ properties: [] }], multivariate: { variants: [{ key: 'a', rollout_percentage: 30 }, { key: 'b', rollout_percentage: 30 }] } }),
    flag('plan-exact', { groups: [{ properties: [person('plan', 'exact', 'pro')], rollout_percentage: 80 }], payloads: { true: '42' } }),
    flag('plan-list', { groups: [{ properties: [person('plan', 'exact', ['pro', 'Enterprise'])] }] }),
    flag('plan-is-not', { groups: [{ properties: [person('plan', 'is_not', 'free')], rollout_percentage: 60 }] }),
    flag('email-contains', { groups: [{ properties: [person('email', 'icontains', 'EXAMPLE')] }] }),
    flag('email-not-contains', { groups: [{ properties: [person('email', 'not_icontains', 'test')] }] }),
    flag('name-regex', { groups: [{ properties: [person('name', 'regex', '^[a-m]')] }] }),
    flag('name-not-regex', { groups: [{ properties: [person('name', 'not_regex', '\\d{3}')] }] }),
    flag('name-bad-regex', { groups: [{ properties: [person('name', 'not_regex', '(')] }] }),
    flag('age-gt', { groups: [{ properties: [person('age', 'gt', '30'), person('age', 'lte', '70')] }] }),
    flag('age-lt', { groups: [{ properties: [person('age', 'lt', '18')] }, { properties: [person('age', 'gte', '90')] }] }),
    flag('signed-up-before', { groups: [{ properties: [person('signed_up', 'is_date_before', '2025-01-01')] }] }),
    flag('signed-up-after', { groups: [{ properties: [person('signed_up', 'is_date_after', '-30d')] }] }),
    flag('signed-up-recent', { groups: [{ properties: [person('signed_up', 'is_date_after', '-6w'), person('signed_up', 'is_date_before', '-12h')] }] }),
    flag('email-set', { groups: [{ properties: [person('email', 'is_set', 'is_set')], rollout_percentage: 50 }] }),
    flag('beta-true', { groups: [{ properties: [person('beta', 'exact', true)] }] }),
    flag('beta-false', { groups: [{ properties: [person('beta', 'exact', 'false')] }] }),
    flag('score-exact', { groups: [{ properties: [person('score', 'exact', 42)] }, { properties: [person('score', 'exact', ['7', 8])] }] }),
    flag('overrides', {
      groups: [
        { properties: [person('plan', 'exact', 'free')], rollout_percentage: 100 },
        { properties: [person('email', 'icontains', 'example')], variant: 'blue' },
        { properties: [person('age', 'gt', '50')], variant: 'missing-variant' },
      ],
      multivariate: { variants: [{ key: 'red', rollout_percentage: 50 }, { key: 'blue', rollout_percentage: 50 }] },
      payloads: { red: '{"r": 1}', blue: '[1, 2]' },
    }),
    flag('cohort-members', { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 7 }], rollout_percentage: 90 }] }),
    flag('company-plan', {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: 'tier', operator: 'exact', value: ['gold', 'silver'], type: 'group', group_type_index: 0 }], rollout_percentage: 75 }],
      payloads: { true: '{"group": true}' },
    }),
    flag('company-variants', {
      aggregation_group_type_index: 0,
      groups: [{ properties: [], rollout_percentage: 50 }],
      multivariate: { variants: [{ key: 'x', rollout_percentage: 50 }, { key: 'y', rollout_percentage: 50 }] },
    }),
    flag('switched-off', { groups: [{ properties: [], rollout_percentage: 100 }] }, { active: false }),
  ],
}

const PLANS = ['free', 'pro', 'PRO', 'enterprise', 'Enterprise', 'team']
const DOMAINS = ['example.com', 'Example.org', 'test.io', 'mail.net']
const BETAS = [true, false, 'true', 'FALSE', 'True', 'false']
const TIERS = ['gold', 'Silver', 'bronze', 'GOLD']
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'

export interface DifferentialCase {
  readonly distinctId: string
  readonly personProperties: Record<string, unknown>
  readonly groups: Record<string, string>
  readonly groupProperties: Record<string, Record<string, unknown>>
}

/** One random person (and sometimes a company) with every property the flags above read. */
export const randomCase = (random: () => number, index: number, nowMs: number): DifferentialCase => {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const word = (length: number) => Array.from({ length }, () => pick([...LETTERS])).join('')
  const name = random() < 0.2 ? `${word(3)}${Math.floor(random() * 1000)}` : word(6)
  const personProperties: Record<string, unknown> = {
    plan: pick(PLANS),
    email: `${word(5)}@${pick(DOMAINS)}`,
    name,
    age: Math.floor(random() * 100),
    signed_up: new Date(nowMs - Math.floor(random() * 800 * 86_400_000)).toISOString(),
    beta: pick(BETAS),
    score: pick([42, 7, 8, 9, 100]),
  }
  const withCompany = random() < 0.7
  return {
    distinctId: `user-${index}-${word(4)}`,
    personProperties,
    groups: withCompany ? { company: `company-${Math.floor(random() * 500)}` } : {},
    groupProperties: withCompany ? { company: { tier: pick(TIERS) } } : {},
  }
}
