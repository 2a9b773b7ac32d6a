import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { SqliteReadStore } from '../src/readstore/sqlite.js'
import { ownFilesOf } from '../src/readstore/sqlite-shards.js'
import { events } from '../src/events/projection.js'
import { sessions } from '../src/sessions/projection.js'
import { groups } from '../src/groups/projection.js'
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
const builder = (core: '0' | '1', logPath: string, storePath: string, partitions: number, owner: string) =>
  new Promise<{ seconds: number; ran: string[] }>((resolve, reject) => {
    const args = [process.execPath, BUILD, logPath, storePath, String(partitions), owner, String(LEASE_MS)]
    const child = pinned ? spawn('taskset', ['-c', core, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(args[0]!, args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`partition-build exited with ${code}`))))
  })

const digestsOf = async (path: string): Promise<string[]> => {
  const store = new SqliteReadStore({ path, ownFiles: ownFilesOf([events, sessions, groups]) })
  try {
    const registry = new ProjectionRegistry(store)
    const out = []
    for (const projector of [events, sessions, groups]) out.push((await digestProjection(store, projector, (await registry.read(projector.name))!.active)).sha256)
    return out
  } finally {
    await store.close()
  }
}

/**
 * The partitioned read models (events, sessions and groups) built from `total` captured events: by one
 * process of one partition on core 0, and by two processes on cores 0 and 1 sharing two
 * partitions, each from nothing, with the digests of the two builds compared.
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
    const logPath = join(installed.dir, 'events.sqlite')
    const one = await builder('0', logPath, join(installed.dir, 'one.sqlite'), 1, 'one')
    const two = await Promise.all([
      builder('0', logPath, join(installed.dir, 'two.sqlite'), 2, 'first'),
      builder('1', logPath, join(installed.dir, 'two.sqlite'), 2, 'second'),
    ])
    const twoSeconds = Math.max(...two.map((process) => process.seconds))
    const [oneDigests, twoDigests] = [await digestsOf(join(installed.dir, 'one.sqlite')), await digestsOf(join(installed.dir, 'two.sqlite'))]
    const same = oneDigests.every((digest, i) => digest === twoDigests[i])
    return [
      { name: `events, sessions and groups built by one process, one partition, on one core (${total.toLocaleString('en-US')} events)`, value: total / one.seconds, unit: 'events/s' },
      {
        name: `the same by two processes on two cores, two partitions (${two.map((process, i) => `process ${i + 1}: ${process.ran.join(', ')}`).join('; ')})`,
        value: total / twoSeconds, unit: 'events/s',
        note: `${(one.seconds / twoSeconds).toFixed(2)}× one process; digests ${same ? 'equal' : 'DIFFER'}`,
      },
    ]
  } finally {
    installed.remove()
  }
}
