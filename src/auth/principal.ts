import type { JsonObject } from '../eventlog/port.js'

/** The caller of a management route, resolved from its personal API key. */
export interface Principal {
  readonly keyId: string
  /** null for a legacy key issued without scopes, which PostHog lets do anything. */
  readonly scopes: readonly string[] | null
  readonly user: JsonObject & { uuid: string; id: number; organization_id: string }
  /** Environments (teams) the key is limited to; null reaches all of the user's. */
  readonly scopedTeams: readonly number[] | null
  /** Organizations the key is limited to; null reaches all of the user's. */
  readonly scopedOrganizations: readonly string[] | null
}
