import type { Test } from 'tap'
import { initialize, issueApiKey, type Installation, type IssuedKey } from '../../src/accounts/commands.js'
import { buildApp, type AppDeps } from '../../src/app.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import type { CommandContext } from '../../src/kernel/handle-command.js'
import { newEventId } from '../../src/kernel/ids.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { allProjectors } from '../../src/modules.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../projections/registry.js'

export const context = (actor = 'test'): CommandContext => ({ actor, now: new Date().toISOString(), correlationId: newEventId() })

/**
 * A whole service in this process on throwaway SQLite databases: projectors running, the HTTP
 * app ready for `inject`, and an installation with a key that has every scope.
 */
export const world = async (t: Test, options: { projectors?: readonly Projector[]; app?: Partial<AppDeps> } = {}) => {
  const projectors = options.projectors ?? allProjectors
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors })
  await projections.start()
  const models = new ReadModels({ store, registry, projectors, projections })
  const app = await buildApp({ log, store, models, projections, roles: ['api', 'ingest'], ...options.app })
  const installation: Installation = await initialize(log, context())
  const issueKey = (scopes: string[]): Promise<IssuedKey> =>
    issueApiKey(log, { userUuid: installation.user_uuid, scopes, label: 'test' }, context())
  const key = await issueKey(['*'])
  t.teardown(async () => {
    await app.close()
    await projections.stop()
    await log.close()
    await store.close()
  })
  const bearer = (value: string) => ({ authorization: `Bearer ${value}` })
  return { log, store, registry, projections, models, app, installation, key, issueKey, bearer }
}
