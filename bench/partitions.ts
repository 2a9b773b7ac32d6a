import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { SqliteReadStore } from '../src/readstore/sqlite.js'
import { ownFilesOf } from '../src/readstore/sqlite-shards.js'
import { events } from '../src/events/projection.js'
import { sessions } from '../src/sessions/projection.js'
import { groups } from '../src/groups/projection.js'
import { persons } from '../src/persons/projection.js'
import type { Projector } from '../src/readstore/projector.js'
import { physicalCollection } from '../src/readstore/names.js'
import { canonicalJson, sha256 } from '../src/kernel/canonical-json.js'
import { digestProjection } from '../projections/digest.js'
import { ProjectionRegistry } from '../projections/registry.js'
import type { Figure } from './figures.js'
import { ingestHistory } from './history.js'
import { startHedgelog } from './processes.js'
import { pinned } from './pinning.js'
import { install, projected } from './setup.js'

const BUILD = fileURLToPath(new URL('./partition-build.js', import.meta.url))
/** Partition leases of the builders: short, so that the second process gets its share within a second of starting. */
const LEASE_MS = 5000

/** One projector process on `core`, building into `store`; what it printed. */
const builder = (core: '0' | '1', logPath: string, storePath: string, partitions: number, owner: string, projectors: readonly Projector[]) =>
  new Promise<{ seconds: number; ran: string[] }>((resolve, reject) => {
    const args = [process.execPath, BUILD, logPath, storePath, String(partitions), owner, String(LEASE_MS), projectors.map((one) => one.name).join(',')]
    const child = pinned ? spawn('taskset', ['-c', core, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(args[0]!, args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`partition-build exited with ${code}`))))
  })

/**
 * The digests of the builds in the store at `path`. Persons are hashed without their integer ids and
 * counters, which are counted per partition and so differ between partition counts.
 */
const digestsOf = async (path: string, projectors: readonly Projector[]): Promise<string[]> => {
  const store = new SqliteReadStore({ path, ownFiles: ownFilesOf(projectors) })
  try {
    const registry = new ProjectionRegistry(store)
    const out = []
    for (const projector of projectors) {
      const build = (await registry.read(projector.name))!.active
      if (projector !== persons) {
        out.push((await digestProjection(store, projector, build)).sha256)
        continue
      }
      const lines: string[] = []
      for (const collection of projector.collections.filter((one) => one !== 'person_counters')) {
        for await (const { id, doc } of store.scan(physicalCollection(collection, build))) {
          const { id: _number, ...rest } = doc
          lines.push(`${collection} ${id} ${canonicalJson(collection === 'persons' ? rest : doc)}`)
        }
      }
      out.push(sha256(lines.join('\n')))
    }
    return out
  } finally {
    await store.close()
  }
}

/** The two builds of `projectors`: by one process of one partition on core 0, and by two processes on cores 0 and 1 sharing two partitions. */
const buildFigures = async (dir: string, label: string, projectors: readonly Projector[], total: number): Promise<Figure[]> => {
  const logPath = join(dir, 'events.sqlite')
  const [onePath, twoPath] = [join(dir, `one-${projectors[0]!.name}.sqlite`), join(dir, `two-${projectors[0]!.name}.sqlite`)]
  const one = await builder('0', logPath, onePath, 1, 'one', projectors)
  const two = await Promise.all([builder('0', logPath, twoPath, 2, 'first', projectors), builder('1', logPath, twoPath, 2, 'second', projectors)])
  const twoSeconds = Math.max(...two.map((process) => process.seconds))
  const [oneDigests, twoDigests] = [await digestsOf(onePath, projectors), await digestsOf(twoPath, projectors)]
  const same = oneDigests.every((digest, i) => digest === twoDigests[i])
  return [
    { name: `${label} built by one process, one partition, on one core (${total.toLocaleString('en-US')} events)`, value: total / one.seconds, unit: 'events/s' },
    {
      name: `the same by two processes on two cores, two partitions (${two.map((process, i) => `process ${i + 1}: ${process.ran.join(', ')}`).join('; ')})`,
      value: total / twoSeconds, unit: 'events/s',
      note: `${(one.seconds / twoSeconds).toFixed(2)}× one process; ${projectors.includes(persons) ? 'documents but integer person ids' : 'digests'} ${same ? 'equal' : 'DIFFER'}`,
    },
  ]
}

/**
 * The partitioned read models built from `total` captured events, events, sessions and groups
 * together, then persons: each by one process of one partition on core 0, and by two processes on
 * cores 0 and 1 sharing two partitions, each from nothing, with the two builds compared.
 */
export const partitionFigures = async (total: number): Promise<Figure[]> => {
  const installed = await install()
  try {
    const service = await startHedgelog(installed.dir, '0,1')
    try {
      await ingestHistory(service.address, installed.token, total)
      await projected(service.address)
    } finally {
      await service.stop()
    }
    return [
      ...await buildFigures(installed.dir, 'events, sessions and groups', [events, sessions, groups], total),
      ...await buildFigures(installed.dir, 'persons', [persons], total),
    ]
  } finally {
    installed.remove()
  }
}
