import { z } from 'zod'
import type { JsonObject } from '../eventlog/port.js'
import { noToken, parsingFailed } from './errors.js'

/** One event as posthog-node's v1 capture mode sends it: request options and session ids lifted out of the properties. */
const V1Event = z.looseObject({
  event: z.string(),
  uuid: z.string(),
  distinct_id: z.string(),
  timestamp: z.string(),
  session_id: z.string().optional(),
  window_id: z.string().optional(),
  options: z.looseObject({
    cookieless_mode: z.boolean().optional(),
    disable_skew_correction: z.boolean().optional(),
    process_person_profile: z.boolean().optional(),
    product_tour_id: z.string().optional(),
  }).optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
})

const V1Batch = z.looseObject({
  created_at: z.string().optional(),
  historical_migration: z.boolean().optional(),
  batch: z.array(V1Event),
})

const BEARER = /^Bearer\s+(\S+)\s*$/

/** The project token of a v1 request: `Authorization: Bearer <project token>`. */
export const v1Token = (authorization: string | string[] | undefined): string => {
  const match = typeof authorization === 'string' ? BEARER.exec(authorization.trim()) : null
  if (!match) throw noToken()
  return match[1]!
}

/** Puts back what posthog-node lifted out of the properties, so the event reads as any other capture. */
const legacyEvent = (event: z.output<typeof V1Event>): JsonObject => {
  const properties: JsonObject = { ...(event.properties ?? {}) }
  const options = event.options ?? {}
  if (event.session_id !== undefined) properties['$session_id'] = event.session_id
  if (event.window_id !== undefined) properties['$window_id'] = event.window_id
  if (options.process_person_profile !== undefined) properties['$process_person_profile'] = options.process_person_profile
  if (options.disable_skew_correction !== undefined) properties['$ignore_sent_at'] = options.disable_skew_correction
  if (options.cookieless_mode !== undefined) properties['$cookieless_mode'] = options.cookieless_mode
  if (options.product_tour_id !== undefined) properties['$product_tour_id'] = options.product_tour_id
  return { event: event.event, uuid: event.uuid, distinct_id: event.distinct_id, timestamp: event.timestamp, properties }
}

/**
 * `POST /i/v1/analytics/events` (`{created_at, historical_migration?, batch}`) as the `/batch/`
 * body the rest of ingestion reads; `created_at` is the SDK's send time.
 */
export const v1AsBatch = (json: unknown, token: string): JsonObject => {
  const parsed = V1Batch.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw parsingFailed(`${issue.path.join('.') || 'body'}: ${issue.message}`)
  }
  const { batch, created_at: createdAt, historical_migration: historical } = parsed.data
  return {
    api_key: token,
    batch: batch.map(legacyEvent),
    ...(createdAt !== undefined ? { sent_at: createdAt } : {}),
    ...(historical === true ? { historical_migration: true } : {}),
  }
}
