import type { JsonObject } from '../eventlog/port.js'

/** An environment (a PostHog team) as its read model stores it. */
export type Environment = JsonObject & { id: number; organization: string; project_id: number; api_token: string }
