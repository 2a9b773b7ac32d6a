import { SqliteEventLog } from '../src/eventlog/sqlite.js'
import { comparePositions } from '../src/eventlog/port.js'
import { SqliteReadStore } from '../src/readstore/sqlite.js'
import { ownFilesOf } from '../src/readstore/sqlite-shards.js'
import { buildPosition } from '../src/readstore/build-position.js'
import { events } from '../src/events/projection.js'
import { sessions } from '../src/sessions/projection.js'
import { groups } from '../src/groups/projection.js'
import { persons } from '../src/persons/projection.js'
import { ProjectionSet } from '../projections/projection-set.js'
import { ProjectionRegistry } from '../projections/registry.js'
import { PartitionGroup } from '../projections/partition-group.js'

/**
 * `node partition-build.js <log file> <store file> <partitions> <owner> [lease ms] [projections]`: one projector process
 * building read models of a log in `partitions` (the comma-separated `projections`, by default events,
 * sessions and groups), sharing them with any
 * other process started on the same store file. Exits once every partition of both builds has
 * applied the whole log, whichever process ran it, printing `{"seconds": …, "ran": […]}`: the partitions
 * it ran at the end, and how many partition runners it started in all.
 */
const [logPath, storePath, count, owner, leaseMs = '10000', names = 'events,sessions,groups'] = process.argv.slice(2)
if (logPath === undefined || storePath === undefined || count === undefined || owner === undefined) {
  throw new Error('usage: partition-build <log file> <store file> <partitions> <owner> [lease ms]')
}
const projectors = names.split(',').map((name) => {
  const projector = [events, sessions, groups, persons].find((one) => one.name === name)
  if (!projector) throw new Error(`not a partitioned projection: ${name}`)
  return projector
})
const started = performance.now()
const log = new SqliteEventLog({ path: logPath })
const store = new SqliteReadStore({ path: storePath, ownFiles: ownFilesOf(projectors) })
const registry = new ProjectionRegistry(store)
const set = new ProjectionSet({ log, store, registry, projectors, partitions: Number(count), owner, partitionLeaseMs: Number(leaseMs) })
await set.start()
const head = (await log.headPosition())!
for (;;) {
  let done = true
  for (const projector of projectors) {
    const build = (await registry.read(projector.name))!.active
    const at = await buildPosition(store, projector.name, build)
    if (at === null || comparePositions(at, head) < 0) done = false
  }
  if (done) break
  await new Promise((resolve) => setTimeout(resolve, 50))
}
const seconds = (performance.now() - started) / 1000
const ran = projectors.map((projector) => {
  const group = set.activeRunner(projector.name)
  return group instanceof PartitionGroup ? `${projector.name} ${group.running.join('+') || 'none'} (${group.starts} started)` : `${projector.name} whole`
})
await set.stop()
await store.close()
await log.close()
process.stdout.write(`${JSON.stringify({ seconds, ran })}\n`)
