import t from 'tap'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { niceOfThreads } from '../support/threads.js'
import { readsOf, shareOut, wakes } from '../../projections/threads/host.js'
import { allProjectors } from '../../src/modules.js'

t.test('projectors are shared out over the threads by weight, each exactly once', async (t) => {
  const shares = shareOut(allProjectors, 2)
  t.equal(shares.length, 2)
  t.same(shares.flat().sort(), allProjectors.map((p) => p.name).sort(), 'every projector runs in exactly one thread')
  t.ok(shares.every((names) => names.some((name) => ['events', 'sessions', 'persons'].includes(name))), 'each thread takes some of the heavy captured-event projectors')
  const threadOf = (name: string) => shares.findIndex((names) => names.includes(name))
  t.not(threadOf('persons'), threadOf('sessions'), 'the two heaviest, persons and sessions, run in different threads')
  t.equal(threadOf('persons'), threadOf('groups'), 'the lightest captured-event projector joins the heaviest')
})

t.test('from three threads on, the projections of management writes run apart from the captured-event projectors', async (t) => {
  const captured = ['persons', 'groups', 'sessions', 'events']
  for (const count of [3, 4]) {
    const shares = shareOut(allProjectors, count)
    t.equal(shares.length, count)
    t.same(shares.flat().sort(), allProjectors.map((p) => p.name).sort(), 'every projector runs in exactly one thread')
    const management = shares.at(-1)!
    t.same([...management].sort(), allProjectors.map((p) => p.name).filter((name) => !captured.includes(name)).sort(), 'the last thread runs every other projection')
    t.ok(shares.slice(0, -1).every((names) => names.every((name) => captured.includes(name))), 'the others run only captured-event projectors')
  }
  const threadOf = (name: string) => shareOut(allProjectors, 3).findIndex((names) => names.includes(name))
  t.not(threadOf('persons'), threadOf('sessions'))
  t.equal(threadOf('persons'), threadOf('groups'))
  t.equal(shareOut(allProjectors, 1).length, 1, 'one thread runs everything')
})

t.test('the projection threads of a started service run at the configured lower priority and project what is captured', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string; personal_api_key: string; environment_id: number }
  for (const [nice, expected] of [[undefined, 19], ['7', 7]] as const) {
    const server = await startServer([], { ...env, ...(nice ? { HEDGELOG_PROJECTION_NICE: nice } : {}) })
    const threads = niceOfThreads(server.child.pid!)
    t.equal(threads.filter((n) => n === expected).length, 3, `three threads at nice ${expected}`)
    t.ok(threads.filter((n) => n === 0).length >= 1, 'the HTTP thread keeps the normal priority')
    const distinctId = `thread-${expected}`
    const captured = await fetch(`${server.address}/capture/`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: init.project_api_key, event: 'e', distinct_id: distinctId, properties: { $set: { seen: true } } }),
    })
    t.equal(captured.status, 200)
    let found = 0
    for (let i = 0; i < 100 && found === 0; i++) {
      const persons = await fetch(`${server.address}/api/environments/${init.environment_id}/persons/?distinct_id=${distinctId}`, {
        headers: { authorization: `Bearer ${init.personal_api_key}` },
      }).then((r) => r.json()) as { results: unknown[] }
      found = persons.results.length
      if (found === 0) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    t.equal(found, 1, 'the captured person was projected by a thread')
    server.child.kill('SIGTERM')
    t.equal(await exited(server.child), 0, 'the service stops cleanly, threads included')
  }
})

t.test('a commit wakes only the threads whose projectors read what it wrote', async (t) => {
  const shares = shareOut(allProjectors, 3)
  const reads = shares.map((names) => readsOf(allProjectors, names))
  const captured = new Set(['EventsCaptured'])
  t.same(reads.map((r) => wakes(r, captured)), [true, true, false], 'captured events wake the captured-event threads, not the management one')
  const dashboard = new Set(['DashboardCreated'])
  t.same(reads.map((r) => wakes(r, dashboard)), [false, false, true], 'a dashboard write wakes only the management thread')
  t.same(reads.map((r) => wakes(r, new Set(['EventsCaptured', 'DashboardCreated']))), [true, true, true], 'a group of both wakes all')
  t.same(reads.map((r) => wakes(r, undefined)), [true, true, true], 'a commit of unknown types wakes every thread')
  t.notOk(wakes(new Set(), undefined), 'a thread that reads nothing is never woken')
})
