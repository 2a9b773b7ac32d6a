import type { FastifyBaseLogger } from 'fastify'
import type { EventLog } from './eventlog/port.js'
import type { ReadStore } from './readstore/port.js'
import type { Mailer } from './mail/mailer.js'
import type { Channels } from './delivery/targets.js'
import type { Projections } from './readstore/projections.js'
import type { ReadModels } from './readstore/read-models.js'
import type { AuditedResource } from './readstore/audited-resource.js'
import type { RateWindow } from './auth/rate-limit.js'
import type { TokenResolver } from './ingestion/environments.js'
import type { InsightResults } from './insights/results.js'
import type { LiveInsights } from './insights/live/live-insights.js'
import type { AdmissionBounds } from './http/admission.js'
import type { StoreWaits } from './http/store-gate.js'

export type HttpRole = 'api' | 'ingest'

export interface AppDeps {
  readonly log: EventLog
  readonly store: ReadStore
  readonly models: ReadModels
  readonly projections?: Projections
  /** Which route groups to serve; `/_health` is always served. */
  readonly roles: readonly HttpRole[]
  /** A pino logger; none in tests. */
  readonly logger?: FastifyBaseLogger
  /** Requests allowed per personal API key; none (no limit) when not given. */
  readonly rateLimits?: readonly RateWindow[]
  /** Sends invitation e-mails; none when SMTP is not configured. */
  readonly mailer?: Mailer
  /** How subscription deliveries leave the process, and the base of their links; by default e-mail through `mailer`, public addresses only. */
  readonly delivery?: { readonly channels: Channels; readonly publicUrl: string }
  /** How long a client may take to send a whole request, headers and body. Default 30 s. */
  readonly requestTimeoutMs?: number
  /** How long a client may take to send the request line and headers. Default 10 s, or the request timeout if shorter. */
  readonly headersTimeoutMs?: number
  /** Connections kept open at most. Default MAX_CONNECTIONS. */
  readonly maxConnections?: number
  /** Connections one client address may hold open; 0 for no cap per address. Default CONNECTIONS_PER_ADDRESS. */
  readonly connectionsPerAddress?: number
  /** Failed authentications allowed per client address; none (no limit) when empty. Default AUTH_FAILURE_LIMITS. */
  readonly authFailureLimits?: readonly RateWindow[]
  /** Addresses of the proxies in front, whose `X-Forwarded-For` names the client, and which are not held to the cap per address. */
  readonly trustedProxies?: readonly string[]
  /** Computes insights' results; by default live where projections run here, else the query service over the read models (`queriedInsightResults`). */
  readonly insightResults?: InsightResults
  /** False: insights are computed on reads only, never kept live. Default true. */
  readonly keepInsightsLive?: boolean
  /** What one generation of live insights may keep, in entries; `DEFAULT_MAX_ENTRIES` unless given. */
  readonly liveInsightsMaxEntries?: number
  /** How often live insights look again for the queries that saved insights keep; `RESCAN_MS` unless given. */
  readonly liveInsightsRescanMs?: number
  /** Admission control's bounds (see `useAdmission`); none admits every request. */
  readonly admission?: AdmissionBounds
  /** The stores this process has not reached since it started: requests that need them are refused with 503 until they answer. */
  readonly storeWaits?: StoreWaits
  /** How long `/_health` waits for each store; `PROBE_TIMEOUT_MS` unless given. */
  readonly healthProbeTimeoutMs?: number
}

/** What every route plugin of a feature module is given: the app's dependencies and what the app builds from them. */
export interface RouteDeps extends AppDeps {
  /** One token cache for every public endpoint of the process. */
  readonly tokens: TokenResolver
  readonly delivery: { readonly channels: Channels; readonly publicUrl: string }
  /** Every audited resource of every module. */
  readonly audited: readonly AuditedResource[]
  readonly insightResults: InsightResults
  /** The insights kept live by this process, when it keeps any. */
  readonly liveInsights: LiveInsights | null
}
