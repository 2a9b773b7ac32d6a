import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/**
 * A real HTTP receiver on loopback that keeps every request. Each request is answered with the
 * next of `answers` (the last repeats): a status code, or 'hang' to never answer.
 */
export const httpReceiver = async (t: Test, answers: (number | 'hang')[] = [200]) => {
  const received: Received[] = []
  const plan = { answers }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() })
      const answer = plan.answers.length > 1 ? plan.answers.shift()! : plan.answers[0]!
      if (answer === 'hang') return
      response.writeHead(answer, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url, received,
    /** Answers from now on with these, in order. */
    answer: (next: (number | 'hang')[]) => { plan.answers = next },
  }
}
