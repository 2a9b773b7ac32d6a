/**
 * posthog-node 4.10.2, loaded without its type declarations (they import a TypeScript source
 * file our compiler options cannot check). Only what the tests call is typed.
 */
export interface PostHogClient {
  capture(message: { distinctId: string; event: string; properties?: Record<string, unknown>; groups?: Record<string, string>; uuid?: string; timestamp?: Date }): void
  identify(message: { distinctId: string; properties?: Record<string, unknown> }): void
  alias(message: { distinctId: string; alias: string }): void
  groupIdentify(message: { groupType: string; groupKey: string; properties?: Record<string, unknown> }): void
  on(event: 'error', listener: (error: unknown) => void): void
  flush(): Promise<void>
  shutdown(): Promise<void>
}

export interface PostHogOptions {
  readonly host: string
  readonly flushAt?: number
  readonly flushInterval?: number
  readonly fetchRetryCount?: number
  readonly requestTimeout?: number
  readonly historicalMigration?: boolean
  readonly maxBatchSize?: number
  readonly maxQueueSize?: number
}

const MODULE: string = 'posthog-node'

export const postHogClient = async (token: string, options: PostHogOptions): Promise<PostHogClient> => {
  const { PostHog } = (await import(MODULE)) as { PostHog: new (token: string, options: PostHogOptions) => PostHogClient }
  return new PostHog(token, options)
}
