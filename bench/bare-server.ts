/**
 * The baseline for the capture bench: a bare fastify app in its own process whose one route
 * parses the same POST body as JSON and answers what capture answers, storing nothing.
 */
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.post('/capture/', async (request, reply) => {
  const body = request.body as { event?: unknown } | null
  if (body === null || typeof body !== 'object') return reply.status(400).send({ status: 400 })
  return reply.header('content-type', 'application/json; charset=utf-8').send('{"status":1}')
})
// The decide baseline: the same body parsed, a decide-sized answer sent, nothing evaluated.
const DECIDE_ANSWER = JSON.stringify({ featureFlags: {}, featureFlagPayloads: {}, errorsWhileComputingFlags: false })
app.post('/decide/', async (request, reply) => {
  if (request.body === null || typeof request.body !== 'object') return reply.status(400).send({ status: 400 })
  return reply.header('content-type', 'application/json; charset=utf-8').send(DECIDE_ANSWER)
})
const address = await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`${JSON.stringify({ address })}\n`)
