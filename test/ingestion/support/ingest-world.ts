import type { Test } from 'tap'
import { initialize } from '../../../src/accounts/commands.js'
import { buildApp } from '../../../src/app.js'
import type { EventLog } from '../../../src/eventlog/port.js'
import type { ReadStore } from '../../../src/readstore/port.js'
import { allProjectors } from '../../../src/modules.js'
import { ProjectionSet } from '../../../projections/projection-set.js'
import type { Projector } from '../../../src/readstore/projector.js'
import type { DocumentTypes, ReadModelDocuments } from '../../../src/readstore/documents.js'
import { ReadModels } from '../../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../../projections/registry.js'
import { context } from '../../support/world.js'

/** The service's projectors plus `extra` (whose read models `M` maps), over the given stores, with the ingest routes ready. */
export const ingestWorld = async <M extends DocumentTypes<M> = ReadModelDocuments>(t: Test, log: EventLog, store: ReadStore, extra: readonly Projector[]) => {
  const projectors = [...allProjectors, ...extra]
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors })
  await projections.start()
  const models = new ReadModels<ReadModelDocuments & M>({ store, registry, projectors, projections })
  const app = await buildApp({ log, store, models, projections, roles: ['ingest'] })
  const installation = await initialize(log, context())
  t.teardown(async () => {
    await app.close()
    await projections.stop()
  })
  return { app, models, projections, installation }
}
