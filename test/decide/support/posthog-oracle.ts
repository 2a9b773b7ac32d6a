import Fastify from 'fastify'
import type { FlagDefinitionSet } from '../../../src/decide/definitions.js'

/** The part of posthog-node's client used here (its shipped typings pull in uncompilable sources). */
interface PostHogClient {
  getFeatureFlag(key: string, distinctId: string, options: object): Promise<string | boolean | undefined>
  getFeatureFlagPayload(key: string, distinctId: string, matchValue: undefined, options: object): Promise<unknown>
  reloadFeatureFlags(): Promise<void>
  shutdown(): Promise<void>
}
type PostHogConstructor = new (apiKey: string, options: object) => PostHogClient

const loadPostHog = async (): Promise<PostHogConstructor> => {
  const specifier = 'posthog-node'
  const module = (await import(specifier)) as { PostHog: PostHogConstructor }
  return module.PostHog
}

export interface OracleCall {
  readonly personProperties?: Record<string, unknown>
  readonly groups?: Record<string, string>
  readonly groupProperties?: Record<string, Record<string, unknown>>
}

export interface Oracle {
  /** posthog-node 4.10.2's local evaluation; undefined when it is inconclusive. */
  flag(key: string, distinctId: string, call?: OracleCall): Promise<string | boolean | undefined>
  payload(key: string, distinctId: string, call?: OracleCall): Promise<unknown>
}

interface Teardown {
  teardown(fn: () => unknown): void
}

/**
 * posthog-node 4.10.2 with local evaluation, reading `definitions` from a throwaway server that
 * answers its local-evaluation poll, so the real SDK code evaluates the same flags we do.
 */
export const startOracle = async (t: Teardown, definitions: FlagDefinitionSet): Promise<Oracle> => {
  const server = Fastify()
  server.get('/api/feature_flag/local_evaluation', async () => ({
    flags: definitions.flags,
    group_type_mapping: definitions.group_type_mapping ?? {},
    cohorts: definitions.cohorts ?? {},
  }))
  const address = await server.listen({ host: '127.0.0.1', port: 0 })
  const PostHog = await loadPostHog()
  const client = new PostHog('phc_oracle', {
    host: address,
    personalApiKey: 'phx_oracle',
    featureFlagsPollingInterval: 3_600_000,
    fetchRetryCount: 0,
    flushAt: 1,
    flushInterval: 0,
  })
  t.teardown(async () => {
    await client.shutdown()
    await server.close()
  })
  await client.reloadFeatureFlags()
  const options = (call: OracleCall = {}) => ({ ...call, onlyEvaluateLocally: true, sendFeatureFlagEvents: false })
  return {
    flag: (key, distinctId, call) => client.getFeatureFlag(key, distinctId, options(call)),
    payload: (key, distinctId, call) => client.getFeatureFlagPayload(key, distinctId, undefined, options(call)),
  }
}
