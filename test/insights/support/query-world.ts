import type { Test } from 'tap'
import { world } from '../../support/world.js'
import { CAPTURED_COLLECTIONS } from '../../projections/support/captured.js'
import { postHogClient } from '../../ingestion/support/posthog-client.js'

/** One event as a test sends it through posthog-node. */
export interface SentEvent {
  readonly event: string
  readonly distinctId: string
  /** ISO time. */
  readonly at: string
  readonly properties?: Record<string, unknown>
}

/**
 * The whole service listening on a port: events go in through posthog-node 4.10.2 as a
 * historical migration (`/batch/`), and queries through `POST …/query/`.
 */
export const queryWorld = async (t: Test) => {
  const service = await world(t)
  const address = await service.app.listen({ port: 0, host: '127.0.0.1' })
  const environmentId = service.installation.environment_id
  const token = service.installation.project_api_key

  /** Sends the events through posthog-node and waits until every projection has read them. */
  const send = async (events: readonly SentEvent[]): Promise<void> => {
    const errors: unknown[] = []
    const client = await postHogClient(token, { host: address, historicalMigration: true, flushAt: 100, flushInterval: 0, fetchRetryCount: 0 })
    client.on('error', (error) => errors.push(error))
    for (const one of events) {
      client.capture({ distinctId: one.distinctId, event: one.event, properties: one.properties ?? {}, timestamp: new Date(one.at) })
    }
    await client.shutdown()
    if (errors.length > 0) throw new Error(`posthog-node failed: ${String(errors[0])}`)
    const head = await service.log.headPosition()
    if (head && !(await service.models.waitFor(head, CAPTURED_COLLECTIONS, 20_000))) throw new Error('projections did not catch up')
  }

  const query = async (body: unknown, path = `/api/environments/${environmentId}/query/`) => {
    const response = await service.app.inject({ method: 'POST', url: path, headers: service.bearer(service.key.value), payload: body as object })
    return { status: response.statusCode, body: response.json() }
  }

  /** Changes the environment's settings (time zone, week start, test-account filters) as a user would. */
  const settings = async (changes: Record<string, unknown>): Promise<void> => {
    const response = await service.app.inject({
      method: 'PATCH', url: `/api/environments/${environmentId}/`, headers: service.bearer(service.key.value), payload: changes,
    })
    if (response.statusCode !== 200) throw new Error(`settings refused: ${response.body}`)
  }

  return { ...service, address, environmentId, send, query, settings }
}
