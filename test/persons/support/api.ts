import type { Test } from 'tap'
import type { CapturedEvent } from '../../../src/ingestion/captured-event.js'
import { newEventId } from '../../../src/kernel/ids.js'
import { world } from '../../support/world.js'
import { captureAndSettle } from '../../projections/support/captured.js'

/** The whole service with a helper that captures into the installation's environment and waits for it. */
export const apiWorld = async (t: Test) => {
  const service = await world(t)
  const environmentId = service.installation.environment_id
  const headers = service.bearer(service.key.value)
  const ingest = (events: CapturedEvent[], environment = environmentId) => captureAndSettle(service.log, service.models, environment, events)
  const get = (path: string, headersOverride = headers) =>
    service.app.inject({ method: 'GET', url: `/api/projects/${environmentId}${path}`, headers: headersOverride })
  /** An environment of another organization, as its creation event would record it. */
  const foreignEnvironment = async (): Promise<number> => {
    const id = 9000 + Math.floor(Math.random() * 1000)
    const { position } = await service.log.append(`environment-${id}`, [{
      id: newEventId(),
      type: 'EnvironmentCreated',
      data: {
        environmentId: id, uuid: crypto.randomUUID(), projectId: id, organizationId: 'another-org', name: 'Theirs',
        apiToken: `phc_${id}`, timezone: 'UTC', createdBy: 'someone', at: new Date().toISOString(),
      },
    }], { expectedRevision: 'no_stream' })
    await service.models.waitFor(position, ['environments'])
    return id
  }
  return { ...service, environmentId, headers, ingest, get, foreignEnvironment }
}
