import { isIP } from 'node:net'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import { parseRateLimits } from './auth/rate-limit.js'
import { refusedEsdbOption } from './eventlog/esdb-options.js'

/** Whole milliseconds from `min` to `max`, worded the same way for every such setting. */
const milliseconds = (min: number, max: number) => {
  const words = `must be a whole number of milliseconds from ${min} to ${max}`
  return z.coerce.number({ error: words }).int(words).min(min, words).max(max, words)
}

const Env = z.object({
  PORT: z.coerce.number({ error: 'must be a whole number from 0 to 65535' }).int('must be a whole number from 0 to 65535')
    .min(0, 'must be a whole number from 0 to 65535').max(65535, 'must be a whole number from 0 to 65535').default(8000),
  HOST: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  /** Where the embedded SQLite files live; created if missing. */
  HEDGELOG_DATA_DIR: z.string().min(1, 'must not be empty').default('data'),
  /** Set to use EventStoreDB as the event log, e.g. `esdb://localhost:2113?tls=false`. */
  HEDGELOG_EVENTSTORE_URL: z.string().regex(/^esdb(\+discover)?:\/\/./, 'must be an esdb:// or esdb+discover:// connection string')
    .check((ctx) => {
      const refused = refusedEsdbOption(ctx.value)
      if (refused) ctx.issues.push({ code: 'custom', message: refused, input: ctx.value })
    }).optional(),
  /** Set to use MongoDB (a replica set) for read models, e.g. `mongodb://localhost:27017/?replicaSet=rs0`. */
  HEDGELOG_MONGO_URL: z.string().regex(/^mongodb(\+srv)?:\/\/./, 'must be a mongodb:// or mongodb+srv:// connection string').optional(),
  HEDGELOG_MONGO_DATABASE: z.string().regex(/^[A-Za-z0-9_-]{1,60}$/, 'must be a MongoDB database name').default('hedgelog'),
  /**
   * Worker threads the projector role runs the projections in; 0 runs them on the main thread.
   * From three on, one runs the projections of management writes and the others share the
   * captured-event projectors.
   */
  HEDGELOG_PROJECTION_THREADS: z.coerce.number({ error: 'must be a whole number from 0 to 8' }).int('must be a whole number from 0 to 8')
    .min(0, 'must be a whole number from 0 to 8').max(8, 'must be a whole number from 0 to 8').default(3),
  /**
   * Partitions the read models of events, sessions and groups are built in, shared by every process
   * running the projector role on the same stores (each partition has one at a time, under a
   * lease). Changing it builds those read models again beside the live ones.
   */
  HEDGELOG_PROJECTION_PARTITIONS: z.coerce.number({ error: 'must be a whole number from 1 to 64' }).int('must be a whole number from 1 to 64')
    .min(1, 'must be a whole number from 1 to 64').max(64, 'must be a whole number from 1 to 64').default(1),
  /**
   * How long a projector process's lease on a partition lasts unless renewed: how soon the others
   * take over the partitions of a process that died.
   */
  HEDGELOG_PROJECTION_LEASE_MS: z.coerce.number({ error: 'must be a whole number from 1000 to 600000' }).int('must be a whole number from 1000 to 600000')
    .min(1000, 'must be a whole number from 1000 to 600000').max(600_000, 'must be a whole number from 1000 to 600000').default(10_000),
  /**
   * Scheduling priority (nice, 0–19) of the projection threads: above 0, requests come first when
   * the CPU is contended and projections use what is left. 0 shares the CPU evenly.
   */
  HEDGELOG_PROJECTION_NICE: z.coerce.number({ error: 'must be a whole number from 0 to 19' }).int('must be a whole number from 0 to 19')
    .min(0, 'must be a whole number from 0 to 19').max(19, 'must be a whole number from 0 to 19').default(19),
  /** SMTP server for invitation e-mails, e.g. `smtp://user:password@mail.example.com:587`; unset sends none. */
  HEDGELOG_SMTP_URL: z.string().regex(/^smtps?:\/\/./, 'must be an smtp:// or smtps:// URL').optional(),
  /** The sender of Hedgelog's e-mails. */
  HEDGELOG_SMTP_FROM: z.string().min(3, 'must be an address such as Hedgelog <hedgelog@example.com>').default('Hedgelog <hedgelog@localhost>'),
  /** Where users open Hedgelog; links in subscription deliveries start with it. */
  HEDGELOG_PUBLIC_URL: z.string().regex(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// URL').default('http://localhost:8000'),
  /** `0` computes insights on reads only; by default saved insights are answered live where the projections run. */
  HEDGELOG_LIVE_INSIGHTS: z.enum(['0', '1'], { error: 'must be 0 or 1' }).default('1'),
  /** What one generation of live insights may keep, in entries (about 100 bytes each); past it the largest queries are computed on reads. */
  HEDGELOG_LIVE_INSIGHTS_MAX_ENTRIES: z.coerce.number({ error: 'must be a whole number from 1 to 1000000000' }).int('must be a whole number from 1 to 1000000000')
    .min(1, 'must be a whole number from 1 to 1000000000').max(1_000_000_000, 'must be a whole number from 1 to 1000000000').default(8_000_000),
  /** How often (ms) live insights look again for the queries saved insights, dashboards and subscriptions keep; a query none keeps any more is let go then. */
  HEDGELOG_LIVE_INSIGHTS_RESCAN_MS: z.coerce.number({ error: 'must be a whole number of milliseconds from 100 to 3600000' }).int('must be a whole number of milliseconds from 100 to 3600000')
    .min(100, 'must be a whole number of milliseconds from 100 to 3600000').max(3_600_000, 'must be a whole number of milliseconds from 100 to 3600000').default(10_000),
  /** A Slack app's bot token (`xoxb-…`): Slack deliveries then post as the bot, with pictures' replies in the message's thread. */
  HEDGELOG_SLACK_BOT_TOKEN: z.string().regex(/^xox[a-z]-[A-Za-z0-9-]+$/, 'must be a Slack bot token (xoxb-…)').optional(),
  /** Slack's Web API, which the bot calls. */
  HEDGELOG_SLACK_API_URL: z.string().regex(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// URL').default('https://slack.com/api'),
  /** `1` lets subscription deliveries reach loopback and private addresses; refused otherwise. */
  HEDGELOG_DELIVERY_ALLOW_PRIVATE: z.enum(['0', '1'], { error: 'must be 0 or 1' }).default('0'),
  /** How long a webhook or Slack receiver may take to answer a delivery. */
  HEDGELOG_DELIVERY_TIMEOUT_MS: z.coerce.number({ error: 'must be a whole number of milliseconds from 100 to 120000' }).int('must be a whole number of milliseconds from 100 to 120000')
    .min(100, 'must be a whole number of milliseconds from 100 to 120000').max(120_000, 'must be a whole number of milliseconds from 100 to 120000').default(10_000),
  /** Limits per personal API key, e.g. `480/minute,4800/hour` (PostHog's), or `off`. */
  HEDGELOG_RATE_LIMITS: z.string().refine((text) => parseRateLimits(text) !== null, 'must be like 480/minute,4800/hour, or off').default('480/minute,4800/hour'),
  /**
   * For fault tests only: comma-separated places where the process kills itself between the two
   * steps of a command across streams (`tile-move:moved-out`, `flag-create:key-claimed`,
   * `flag-update:key-claimed`, `environment-create:counted`, `insight-dashboards:decided`,
   * `dashboard-insights:decided`).
   */
  HEDGELOG_CRASH_POINTS: z.string().default(''),
  /** Failed authentications (unknown keys and tokens) per client address, e.g. `100/minute,1000/hour`, or `off`. */
  HEDGELOG_AUTH_FAILURE_LIMITS: z.string().refine((text) => parseRateLimits(text) !== null, 'must be like 100/minute,1000/hour, or off').default('100/minute,1000/hour'),
  /** Connections one client address may hold open at once; 0 for no cap per address. */
  HEDGELOG_CONNECTIONS_PER_ADDRESS: z.coerce.number({ error: 'must be a whole number from 0 to 4096' }).int('must be a whole number from 0 to 4096')
    .min(0, 'must be a whole number from 0 to 4096').max(4096, 'must be a whole number from 0 to 4096').default(256),
  /** Addresses of the proxies in front of Hedgelog, comma-separated: their `X-Forwarded-For` names the client. */
  HEDGELOG_TRUSTED_PROXIES: z.string().transform((text) => text.split(',').map((part) => part.trim()).filter((part) => part !== ''))
    .refine((addresses) => addresses.every((address) => isIP(address) !== 0), 'must be IP addresses separated by commas').default([]),
  /** Admission control: the mean event-loop delay (ms) past which requests are refused with 503 and `Retry-After`; 0 turns it off. */
  HEDGELOG_ADMIT_LOOP_DELAY_MS: z.coerce.number({ error: 'must be a whole number from 0 to 60000' }).int('must be a whole number from 0 to 60000')
    .min(0, 'must be a whole number from 0 to 60000').max(60000, 'must be a whole number from 0 to 60000').default(250),
  /** The same bound for `/decide` and `/flags`, which keep a budget of their own; 0 turns it off. */
  HEDGELOG_ADMIT_DECIDE_LOOP_DELAY_MS: z.coerce.number({ error: 'must be a whole number from 0 to 60000' }).int('must be a whole number from 0 to 60000')
    .min(0, 'must be a whole number from 0 to 60000').max(60000, 'must be a whole number from 0 to 60000').default(1000),
  /** How long (ms) the oldest append may wait for its durable commit before writes are refused; 0 turns it off. */
  HEDGELOG_ADMIT_COMMIT_WAIT_MS: z.coerce.number({ error: 'must be a whole number from 0 to 600000' }).int('must be a whole number from 0 to 600000')
    .min(0, 'must be a whole number from 0 to 600000').max(600000, 'must be a whole number from 0 to 600000').default(1000),
  /** How far behind the log (seconds of events) the slowest live projection may be before ingestion is refused; 0 turns it off. */
  HEDGELOG_ADMIT_PROJECTION_LAG_S: z.coerce.number({ error: 'must be a whole number from 0 to 86400' }).int('must be a whole number from 0 to 86400')
    .min(0, 'must be a whole number from 0 to 86400').max(86400, 'must be a whole number from 0 to 86400').default(60),
  /** How many ingestion requests may be in the process at once before new ones are refused with 503 and `Retry-After`; 0 turns it off. */
  HEDGELOG_ADMIT_INGEST_IN_FLIGHT: z.coerce.number({ error: 'must be a whole number from 0 to 100000' }).int('must be a whole number from 0 to 100000')
    .min(0, 'must be a whole number from 0 to 100000').max(100000, 'must be a whole number from 0 to 100000').default(256),
  /** What `Retry-After` tells a client refused for load, in seconds. */
  HEDGELOG_ADMIT_RETRY_AFTER_S: z.coerce.number({ error: 'must be a whole number from 1 to 3600' }).int('must be a whole number from 1 to 3600')
    .min(1, 'must be a whole number from 1 to 3600').max(3600, 'must be a whole number from 1 to 3600').default(2),
  /** How long a CLI command waits for EventStoreDB or MongoDB to answer before it gives up (ms); `serve` waits as long as it takes. */
  HEDGELOG_STORE_WAIT_MS: milliseconds(0, 3_600_000).default(15_000),
  /** How long `/_health` waits for each store to answer before it reports the store as not answering. */
  HEDGELOG_HEALTH_PROBE_TIMEOUT_MS: milliseconds(50, 900).default(500),
  /** gRPC deadline of each EventStoreDB read and subscription call (the client's `defaultDeadline`, unless the URL sets it). */
  HEDGELOG_EVENTSTORE_DEADLINE_MS: milliseconds(100, 600_000).default(10_000),
  /** How long an EventStoreDB append may take before its outcome counts as unknown (503, retried with the same event ids). */
  HEDGELOG_EVENTSTORE_APPEND_DEADLINE_MS: milliseconds(100, 600_000).default(10_000),
  /** How long a MongoDB operation waits for a usable server (`serverSelectionTimeoutMS`, unless the URL sets it). */
  HEDGELOG_MONGO_SERVER_SELECTION_TIMEOUT_MS: milliseconds(100, 600_000).default(10_000),
  /** How long opening a connection to a MongoDB server may take (`connectTimeoutMS`, unless the URL sets it). */
  HEDGELOG_MONGO_CONNECT_TIMEOUT_MS: milliseconds(100, 600_000).default(5_000),
  /** How long a MongoDB socket may wait for an answer (`socketTimeoutMS`, unless the URL sets it); 0 waits for ever. */
  HEDGELOG_MONGO_SOCKET_TIMEOUT_MS: milliseconds(0, 3_600_000).default(60_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'must be one of fatal, error, warn, info, debug, trace, silent' }).default('info'),
})

export type Config = Readonly<z.infer<typeof Env> & { dataDir: string; eventLogPath: string; readStorePath: string }>

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** The only reader of the environment. Empty variables count as unset. */
export const loadConfig = (env: NodeJS.ProcessEnv): Config => {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''))
  const parsed = Env.safeParse(present)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const name = String(issue.path[0])
    throw new ConfigError(`invalid configuration: ${name} ${issue.message} (got ${JSON.stringify(present[name])})`)
  }
  const dataDir = resolve(parsed.data.HEDGELOG_DATA_DIR)
  return Object.freeze({
    ...parsed.data,
    dataDir,
    eventLogPath: join(dataDir, 'events.sqlite'),
    readStorePath: join(dataDir, 'readmodels.sqlite'),
  })
}
