import t from 'tap'
import { openSync, rmSync, writeSync, closeSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

interface Init { project_api_key: string; personal_api_key: string; project_id: number }

/** Batches of 1,000 captured events: enough that a rebuild takes a few seconds. */
const BATCHES = 120

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const json = async (address: string, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${address}${path}`, init)
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}

/** Every read endpoint that answers from a read model, for the environment `init` created. */
const readPaths = (pid: number, dashboards: number[], flags: number[]): string[] => [
  `/api/projects/${pid}/`,
  `/api/projects/${pid}/environments/`,
  `/api/projects/${pid}/dashboards/?limit=100`,
  ...dashboards.map((id) => `/api/projects/${pid}/dashboards/${id}/`),
  `/api/projects/${pid}/subscriptions/`,
  `/api/projects/${pid}/feature_flags/`,
  ...flags.map((id) => `/api/projects/${pid}/feature_flags/${id}/`),
  `/api/projects/${pid}/persons/?limit=100`,
  `/api/projects/${pid}/persons/?distinct_id=user-7`,
  `/api/projects/${pid}/groups/?group_type_index=0`,
  `/api/projects/${pid}/events/?limit=100`,
  `/api/projects/${pid}/sessions/property_definitions/`,
]

/** Answers with the server's own address taken out of `next`/`previous` links. */
const readAll = async (address: string, key: string, paths: string[]) => {
  const answers: Record<string, { status: number; body: unknown }> = {}
  for (const path of paths) {
    const response = await fetch(`${address}${path}`, { headers: { authorization: `Bearer ${key}` } })
    answers[path] = { status: response.status, body: JSON.parse((await response.text()).replaceAll(address, 'ADDRESS')) }
  }
  return answers
}

/** Waits for `/_health` to answer 200 with every projection at the head, recording every status it reported on the way. */
const untilHealthy = async (address: string): Promise<string[]> => {
  const seen: string[] = []
  for (let i = 0; i < 1500; i++) {
    const health = await json(address, '/_health')
    seen.push(String(health.body['status']))
    const atHead = Object.values(health.body['projections'] as Record<string, { lag: number }>).every((p) => p.lag === 0)
    if (health.status === 200 && atHead) return seen
    await sleep(20)
  }
  throw new Error(`never healthy: ${seen.slice(-3).join(', ')}`)
}

t.test('a read store that is deleted or corrupted between runs is rebuilt from the log: health says rebuilding, reads refuse partial data, answers end identical', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as Init
  const auth = { authorization: `Bearer ${init.personal_api_key}`, 'content-type': 'application/json' }

  let server = await startServer([], env)
  const dashboards: number[] = []
  for (let i = 0; i < 5; i++) {
    const created = await json(server.address, `/api/projects/${init.project_id}/dashboards/`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `board ${i}`, tags: [`t${i % 2}`] }) })
    dashboards.push(created.body['id'] as number)
  }
  const flags: number[] = []
  for (let i = 0; i < 3; i++) {
    const created = await json(server.address, `/api/projects/${init.project_id}/feature_flags/`, { method: 'POST', headers: auth, body: JSON.stringify({ key: `flag-${i}`, filters: { groups: [{ rollout_percentage: 50 }] } }) })
    flags.push(created.body['id'] as number)
  }
  await json(server.address, `/api/projects/${init.project_id}/subscriptions/`, {
    method: 'POST', headers: auth,
    body: JSON.stringify({ dashboard: dashboards[0], target_type: 'email', target_value: 'a@example.com', frequency: 'weekly', start_date: '2026-01-05T09:00:00Z' }),
  })
  // Enough captured events that a rebuild takes a moment.
  for (let b = 0; b < BATCHES; b++) {
    const batch = Array.from({ length: 1000 }, (_, i) => ({
      event: i % 10 === 0 ? '$identify' : 'viewed', distinct_id: `user-${(b * 1000 + i) % 3000}`,
      properties: { $session_id: `s-${b}-${i % 20}`, $set: { plan: `p${i % 3}` }, $groups: { company: `c${i % 7}` } },
      timestamp: new Date(Date.UTC(2026, 0, 1) + b * 1000 + i).toISOString(),
    }))
    const answer = await fetch(`${server.address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: init.project_api_key, batch }) })
    t.equal(answer.status, 200)
  }
  await untilHealthy(server.address)
  const paths = readPaths(init.project_id, dashboards, flags)
  const before = await readAll(server.address, init.personal_api_key, paths)
  t.ok(Object.values(before).every((answer) => answer.status === 200), 'every read answered 200 before')
  t.ok(((before[`/api/projects/${init.project_id}/persons/?limit=100`]!.body as { results: unknown[] }).results.length) > 0, 'persons were projected')
  server.child.kill('SIGTERM')
  await exited(server.child)

  const damages: Array<[string, () => void]> = [
    // The main file (management read models, the registry) and the file of the persons projection.
    ['corrupted', () => {
      for (const name of ['readmodels.sqlite', 'readmodels-persons.sqlite']) {
        const fd = openSync(join(dir, name), 'r+')
        writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, 0)
        closeSync(fd)
      }
    }],
    ['deleted', () => { for (const name of readdirSync(dir).filter((n) => n.startsWith('readmodels'))) rmSync(join(dir, name)) }],
  ]
  for (const [how, damage] of damages) {
    damage()
    server = await startServer([], env)
    const dashboardList = paths[2]!
    const duringReads: number[] = []
    let healthy = false
    const reader = (async () => {
      while (!healthy) {
        const answer = await json(server.address, dashboardList, { headers: { authorization: `Bearer ${init.personal_api_key}` } })
        duringReads.push(answer.status)
        if (answer.status === 200) t.same(answer.body, before[dashboardList]!.body, `a read during the rebuild (${how}) is whole`)
        else t.equal(answer.status, 503, `a read during the rebuild (${how}) that cannot be whole is a 503`)
      }
    })()
    const seen = await untilHealthy(server.address)
    healthy = true
    await reader
    t.ok(seen.includes('rebuilding'), `/_health reported rebuilding while the ${how} read store was rebuilt (saw ${[...new Set(seen)].join(', ')})`)
    t.ok(duringReads.length > 0, 'reads were tried during the rebuild')
    const after = await readAll(server.address, init.personal_api_key, paths)
    for (const path of paths) t.same(after[path], before[path], `${path} answers as before (${how})`)
    if (how === 'corrupted') {
      t.match(server.output(), /read store could not be read; it was moved aside/, 'the log says the read store was moved aside')
      t.ok(readdirSync(dir).some((name) => name.startsWith('readmodels.sqlite.unreadable-')), 'the damaged main file is kept beside the new one')
      t.ok(readdirSync(dir).some((name) => name.startsWith('readmodels-persons.sqlite.unreadable-')), 'the damaged file of the persons is kept beside the new one')
    }
    server.child.kill('SIGTERM')
    await exited(server.child)
  }
})

t.test('an unusable data directory or event log stops start-up with one line saying what and where', async (t) => {
  const dir = tempDir(t)
  const notADirectory = join(dir, 'plain-file')
  writeFileSync(notADirectory, 'x')
  const blocked = await runCli(['serve'], { HEDGELOG_DATA_DIR: notADirectory, PORT: '0' })
  t.equal(blocked.code, 1)
  t.match(blocked.stderr, new RegExp(`^hedgelog: cannot use the data directory ${notADirectory}: .*\\n$`), 'one line naming the directory')

  const broken = join(dir, 'broken')
  await runCli(['init', '--json'], { HEDGELOG_DATA_DIR: broken })
  const fd = openSync(join(broken, 'events.sqlite'), 'r+')
  writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, 0)
  closeSync(fd)
  for (const name of readdirSync(broken).filter((n) => /^events\.sqlite-(wal|shm)$/.test(n))) rmSync(join(broken, name))
  const unreadable = await runCli(['serve'], { HEDGELOG_DATA_DIR: broken, PORT: '0' })
  t.equal(unreadable.code, 1)
  t.match(unreadable.stderr, new RegExp(`^hedgelog: cannot open the event log ${join(broken, 'events.sqlite')}: .*not a database.*\\n$`), 'one line naming the event log')
  t.notMatch(unreadable.stderr, /\n\s+at /, 'no stack trace')
})
