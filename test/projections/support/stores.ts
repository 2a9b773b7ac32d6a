import type { Test } from 'tap'
import { SqliteEventLog } from '../../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../../src/readstore/sqlite.js'
import { events } from '../../../src/events/projection.js'
import { groups } from '../../../src/groups/projection.js'
import { persons } from '../../../src/persons/projection.js'
import { ProjectionSet } from '../../../projections/projection-set.js'
import { ReadModels } from '../../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../../projections/registry.js'
import { sessions } from '../../../src/sessions/projection.js'

export const capturedProjectors = [persons, groups, sessions, events]

/** The captured-event projectors running over throwaway SQLite stores. */
export const capturedWorld = async (t: Test) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: capturedProjectors })
  await projections.start()
  const models = new ReadModels({ store, registry, projectors: capturedProjectors, projections })
  t.teardown(async () => {
    await projections.stop()
    await log.close()
    await store.close()
  })
  return { log, store, registry, projections, models }
}
