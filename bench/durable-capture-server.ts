/**
 * The ceiling capture is held against: what fastify and better-sqlite3 alone can do for a durable
 * single-event capture on this machine, in its own process. `POST /capture/` parses the body,
 * stamps it with a UUID and the receive time, queues it as one row of a stream of its own, and
 * answers `{"status":1}` only once its row is committed: the rows of one event-loop turn go in one
 * transaction of a SQLite file in WAL mode with `synchronous = FULL`, as the embedded log commits
 * them. No token, no validation, no person or property handling, no pool: the least a durable
 * acknowledgement costs. `node durable-capture-server.js <dir>` prints `{"address": …}`.
 */
import Database from 'better-sqlite3'
import Fastify from 'fastify'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'

const dir = process.argv[2]
if (dir === undefined) throw new Error('usage: durable-capture-server <dir>')
const db = new Database(join(dir, 'durable-capture.sqlite'))
db.pragma('journal_mode = WAL')
db.pragma('synchronous = FULL')
db.exec('CREATE TABLE IF NOT EXISTS events (position INTEGER PRIMARY KEY, stream TEXT NOT NULL, body TEXT NOT NULL)')
const insert = db.prepare('INSERT INTO events (stream, body) VALUES (?, ?)')

interface Queued {
  readonly stream: string
  readonly body: string
  readonly committed: () => void
}

let queued: Queued[] = []
const commit = db.transaction((rows: Queued[]) => {
  for (const row of rows) insert.run(row.stream, row.body)
})
const flush = (): void => {
  const rows = queued
  queued = []
  commit(rows)
  for (const row of rows) row.committed()
}

const app = Fastify({ logger: false })
const CAPTURED = '{"status":1}'
app.post('/capture/', async (request, reply) => {
  if (request.body === null || typeof request.body !== 'object') return reply.status(400).send({ status: 400 })
  const body = JSON.stringify({ ...(request.body as object), uuid: randomUUID(), timestamp: new Date().toISOString() })
  await new Promise<void>((committed) => {
    if (queued.push({ stream: `ingest-${randomUUID()}`, body, committed }) === 1) setImmediate(flush)
  })
  return reply.header('content-type', 'application/json; charset=utf-8').send(CAPTURED)
})
const address = await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`${JSON.stringify({ address })}\n`)
