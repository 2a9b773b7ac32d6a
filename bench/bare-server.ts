/**
 * The baseline every rate is held against: a bare fastify app in its own process. Its POST routes
 * parse the JSON body and answer what capture answers, storing nothing. Given a file of documents
 * (`[{method, path, body}]`), it also answers each of those routes with exactly that body: the
 * same bytes Hedgelog answered, with nothing read or computed.
 */
import Fastify from 'fastify'
import { readFileSync } from 'node:fs'

export interface BareDocument {
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly body: string
}

const app = Fastify({ logger: false })
const CAPTURED = '{"status":1}'
for (const path of ['/capture/', '/batch/']) {
  app.post(path, async (request, reply) => {
    if (request.body === null || typeof request.body !== 'object') return reply.status(400).send({ status: 400 })
    return reply.header('content-type', 'application/json; charset=utf-8').send(CAPTURED)
  })
}
const file = process.argv[2]
const documents = file === undefined ? [] : JSON.parse(readFileSync(file, 'utf8')) as BareDocument[]
for (const { method, path, body } of documents) {
  app.route({
    method, url: path,
    handler: async (request, reply) => {
      if (method === 'POST' && (request.body === null || typeof request.body !== 'object')) return reply.status(400).send({ status: 400 })
      return reply.header('content-type', 'application/json; charset=utf-8').send(body)
    },
  })
}
const address = await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`${JSON.stringify({ address })}\n`)
