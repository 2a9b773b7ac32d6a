import t from 'tap'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { niceOfThreads } from '../support/threads.js'

t.test('a heavy request is decoded on a thread of lower priority than the HTTP thread, and is accepted', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string }
  const server = await startServer([], env)
  t.teardown(async () => { server.child.kill('SIGTERM'); await exited(server.child) })
  const pid = server.child.pid!
  t.notOk(niceOfThreads(pid).includes(10), 'no decoding thread before a heavy request')

  // Over 256 KiB of body: decoded off the event loop.
  const batch = Array.from({ length: 3000 }, (_, i) => ({ event: 'heavy', distinct_id: `d-${i}`, properties: { padding: 'x'.repeat(80) } }))
  const body = JSON.stringify({ api_key: init.project_api_key, batch })
  t.ok(body.length > 256 * 1024, `a ${body.length}-byte body`)
  const answer = await fetch(`${server.address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  t.equal(answer.status, 200)
  const threads = niceOfThreads(pid)
  t.equal(threads.filter((nice) => nice === 10).length, 1, 'one decoding thread, at nice 10')
  t.ok(threads.includes(0), 'the HTTP thread keeps the normal priority')
})
