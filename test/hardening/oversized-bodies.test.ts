import t from 'tap'
import { execFile } from 'node:child_process'
import { connect } from 'node:net'
import { promisify } from 'node:util'
import { world } from '../support/world.js'

const MiB = 1024 * 1024
const run = promisify(execFile)

/**
 * A client in a process of its own, as an SDK is, sending the body on four connections at once,
 * three times each; it prints how each try ended.
 */
const CLIENT = `
const [url, mib] = process.argv.slice(1)
const body = Buffer.alloc(Number(mib) * 1024 * 1024, 0x20)
const ends = []
await Promise.all([0, 1, 2, 3].map(async () => {
  for (let i = 0; i < 3; i++) {
    try {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      ends.push(response.status + ' ' + (await response.json()).code)
    } catch (error) {
      ends.push('network error ' + (error.cause?.code ?? error))
    }
  }
}))
console.log(JSON.stringify(ends))
`

t.test('a /batch/ body over 20 MiB sent with fetch is answered 413 in capture\'s shape, every time', async (t) => {
  const w = await world(t)
  const address = await w.app.listen({ host: '127.0.0.1', port: 0 })
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CLIENT, `${address}/batch/`, '21'])
  t.same(JSON.parse(stdout), Array(12).fill('413 payload_too_large'), 'the client read the answer on every try')
})

/** Sends `head` on a raw connection and collects what comes back until the server closes, or `waitMs` passes. */
const exchange = (port: number, head: string, onFirstAnswer: (socket: ReturnType<typeof connect>) => void = () => undefined, waitMs = 3000) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let answer = ''
    const timer = setTimeout(() => { socket.destroy(); resolve(answer) }, waitMs)
    socket.on('error', () => undefined)
    socket.on('data', (chunk) => {
      const first = answer === ''
      answer += chunk.toString()
      if (first) onFirstAnswer(socket)
    })
    socket.on('close', () => { clearTimeout(timer); resolve(answer) })
    socket.write(head)
  })

t.test('Expect: 100-continue with a Content-Length over the limit is answered 413 before any body is sent', async (t) => {
  const w = await world(t)
  const port = Number(new URL(await w.app.listen({ host: '127.0.0.1', port: 0 })).port)
  const answer = await exchange(port, `POST /batch/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${30 * MiB}\r\nExpect: 100-continue\r\n\r\n`)
  t.match(answer, /^HTTP\/1\.1 413 /, 'the first answer is the refusal, not 100 Continue')
  t.match(answer, /"code":"payload_too_large"/)
  const management = await exchange(port, `POST /api/environments/${w.installation.environment_id}/dashboards/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${21 * MiB}\r\nExpect: 100-continue\r\n\r\n`)
  t.match(management, /^HTTP\/1\.1 413 /, 'management routes too')
  t.match(management, /"code":"request_too_large"/)

  const payload = JSON.stringify({ api_key: w.installation.project_api_key, batch: [{ event: 'e', distinct_id: 'd' }] })
  const accepted = await exchange(port, `POST /batch/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    (socket) => socket.write(payload))
  t.match(accepted, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /, 'a body that fits is asked for, then accepted')
})
