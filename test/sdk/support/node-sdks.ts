/**
 * The posthog-node releases the project tests against, installed side by side under npm aliases.
 * They are loaded by name at run time, without their type declarations; only what the tests
 * call is typed.
 */
export const NODE_SDKS = [
  { name: 'posthog-node', version: '4.10.2' },
  { name: 'posthog-node-5-29-3', version: '5.29.3' },
  { name: 'posthog-node-5', version: '5.70.0' },
] as const

export type FlagValue = boolean | string | undefined

export interface FlagOptions {
  readonly personProperties?: Record<string, string>
  readonly onlyEvaluateLocally?: boolean
  readonly sendFeatureFlagEvents?: boolean
}

export interface NodeClient {
  getFeatureFlag(key: string, distinctId: string, options?: FlagOptions): Promise<FlagValue>
  getFeatureFlagPayload(key: string, distinctId: string, match?: FlagValue, options?: FlagOptions): Promise<unknown>
  getRemoteConfigPayload(key: string): Promise<unknown>
  reloadFeatureFlags(): Promise<void>
  capture(message: { distinctId: string; event: string; properties?: Record<string, unknown>; uuid?: string }): void
  on(event: 'error', listener: (error: unknown) => void): void
  flush(): Promise<void>
  shutdown(): Promise<void>
}

export interface NodeClientOptions {
  readonly host: string
  readonly personalApiKey?: string
  readonly featureFlagsPollingInterval?: number
  readonly flushAt?: number
  readonly flushInterval?: number
  readonly fetchRetryCount?: number
  readonly requestTimeout?: number
  readonly disableCompression?: boolean
}

export const nodeClient = async (module: string, token: string, options: NodeClientOptions): Promise<NodeClient> => {
  const { PostHog } = (await import(module)) as { PostHog: new (token: string, options: NodeClientOptions) => NodeClient }
  return new PostHog(token, options)
}
