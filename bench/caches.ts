/**
 * `taskset -c 0 node dist/bench/caches.js`: the paths that consult the process's bounded caches,
 * in this process on in-memory SQLite, timed per operation (medians of seven rounds):
 * `/decide?v=3` with 50 flags for a known person (project tokens, kept documents, flag keys'
 * texts), an authenticated management GET (principals by key, query results, pagination bases),
 * and a command on one of 200 aggregates (folded aggregates). Built from an older commit, the
 * same file measures that commit's caches: run the two in turns.
 */
import { initialize, issueApiKey } from '../src/accounts/commands.js'
import { buildApp } from '../src/app.js'
import { SqliteEventLog } from '../src/eventlog/sqlite.js'
import { handleCommand, type CommandContext, type Decider } from '../src/kernel/handle-command.js'
import { newEventId } from '../src/kernel/ids.js'
import { SqliteReadStore } from '../src/readstore/sqlite.js'
import { ReadModels } from '../src/readstore/read-models.js'
import { allProjectors } from '../src/modules.js'
import { ProjectionSet } from '../projections/projection-set.js'
import { ProjectionRegistry } from '../projections/registry.js'
import { flags, personProperties } from './decide.js'

const context = (): CommandContext => ({ actor: 'bench', now: new Date().toISOString(), correlationId: newEventId() })

const log = new SqliteEventLog({ path: ':memory:' })
const store = new SqliteReadStore({ path: ':memory:' })
const registry = new ProjectionRegistry(store)
const projections = new ProjectionSet({ log, store, registry, projectors: allProjectors })
await projections.start()
const models = new ReadModels({ store, registry, projectors: allProjectors, projections })
const app = await buildApp({ log, store, models, projections, roles: ['api', 'ingest'] })
const installation = await initialize(log, context())
const key = await issueApiKey(log, { userUuid: installation.user_uuid, scopes: ['*'], label: 'bench' }, context())
const authorization = `Bearer ${key.value}`
const base = `/api/environments/${installation.environment_id}`

const caughtUp = async (): Promise<void> => {
  const head = await log.headPosition()
  if (head && !(await models.waitFor(head, ['feature_flags', 'flag_set_versions', 'persons', 'person_distinct_ids', 'personal_api_keys', 'users', 'environments'], 30_000))) {
    throw new Error('projections did not catch up')
  }
}
await caughtUp()
for (const flag of flags) {
  const response = await app.inject({ method: 'POST', url: `${base}/feature_flags/`, headers: { authorization }, payload: flag })
  if (response.statusCode !== 201) throw new Error(`flag: ${response.statusCode} ${response.body}`)
}
const captured = await app.inject({
  method: 'POST', url: '/capture/', headers: { 'content-type': 'application/json' },
  payload: JSON.stringify({ api_key: installation.project_api_key, event: '$identify', distinct_id: 'ada', properties: { $set: personProperties } }),
})
if (captured.statusCode !== 200) throw new Error(`capture: ${captured.statusCode} ${captured.body}`)
await caughtUp()

const decidePayload = JSON.stringify({ api_key: installation.project_api_key, distinct_id: 'ada' })
const decide = async (): Promise<void> => {
  const response = await app.inject({ method: 'POST', url: '/decide/?v=3', headers: { 'content-type': 'application/json' }, payload: decidePayload })
  if (response.statusCode !== 200) throw new Error(`decide: ${response.statusCode}`)
}
const management = async (): Promise<void> => {
  const response = await app.inject({ method: 'GET', url: `${base}/feature_flags/?limit=1`, headers: { authorization } })
  if (response.statusCode !== 200) throw new Error(`GET: ${response.statusCode}`)
}

/** A counter per stream: the smallest decider, so the command's own costs are what is timed. */
const counter: Decider<number, 'add', { type: string; data: { n: number } }> = {
  initialState: () => 0,
  evolve: (state, event) => state + event.data.n,
  decide: () => [{ type: 'Added', data: { n: 1 } }],
}
let command = 0
const commandOnce = async (): Promise<void> => {
  await handleCommand(log, counter, `bench-counter-${command++ % 200}`, 'add', context())
}

const microsPerOp = async (op: () => Promise<void>, count: number): Promise<number> => {
  const start = process.hrtime.bigint()
  for (let i = 0; i < count; i++) await op()
  return Number(process.hrtime.bigint() - start) / count / 1000
}
const median = async (op: () => Promise<void>, count: number): Promise<number> => {
  await microsPerOp(op, count)
  const rounds: number[] = []
  for (let round = 0; round < 7; round++) rounds.push(await microsPerOp(op, count))
  rounds.sort((a, b) => a - b)
  return rounds[3]!
}

const decideMicros = await median(decide, 1000)
const managementMicros = await median(management, 1000)
const commandMicros = await median(commandOnce, 1000)
process.stdout.write(`${JSON.stringify({ decide: decideMicros, management: managementMicros, command: commandMicros })}\n`)
await app.close()
await projections.stop()
await log.close()
await store.close()
