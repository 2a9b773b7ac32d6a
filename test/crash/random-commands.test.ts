import t, { type Test } from 'tap'
import fc from 'fast-check'
import { cpSync, writeFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { ABANDONED_CLAIM_MS } from '../../src/flags/decider.js'
import { runCli } from '../support/cli.js'
import { RecordedHttp, type Answer } from '../support/recorded-http.js'
import { Register, type Outcome } from '../support/register.js'
import { ServiceProcess } from '../support/service-process.js'
import { tempDir } from '../support/temp.js'

/*
 * Random concurrent management commands against a real `hedgelog serve`, killed with SIGKILL while
 * requests are in flight and started again on the same data directory; after every restart the
 * model's invariants are checked through the API, and `hedgelog verify` at the end of each run.
 *
 * What a client can be certain of under concurrency and crashes is kept in `Register`s
 * (test/support/register.ts): only acknowledged (2xx) writes are certain, a write cut off by the
 * kill may or may not have happened, a 4xx had no effect. After each check the model starts over
 * from what was read, so each check judges only the requests since the previous one.
 *
 * HEDGELOG_CRASH_SEED and HEDGELOG_CRASH_PATH replay a failing run's commands (fast-check prints
 * both; the interleaving and the kill's moment depend on timing, so a replay may not break the same
 * way); HEDGELOG_CRASH_RUNS changes the number of runs; HEDGELOG_CRASH_DUMP=PREFIX writes every
 * request of run N with its answer to PREFIX-N.log.
 */

const NUM_RUNS = Number(process.env['HEDGELOG_CRASH_RUNS'] ?? 4)
/** No new run starts after this long, so the file ends well within its time budget. */
const NEW_RUNS_UNTIL_MS = 45_000
/** How long after a restart the service may take to finish what a kill left half done. */
const SETTLE_MS = 2_500
const HEALTHY_WITHIN_MS = 20_000
/** Flag keys of creates and key changes; the setup gives the first three to live flags. */
const KEYS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] as const
/** Keys of creates too big to store (and of small creates of the same key beside them): held by nothing else, so the size is what fails. */
const BIG_KEYS = ['zeta', 'eta'] as const
/** Dashboards 0 and 1 everyone may edit; 2 and 3 are restricted to collaborators (level 37). */
const RESTRICTED = [false, false, true, true] as const
const TILES_PER_DASHBOARD = 2
const MEMBERS = 2
/** Condition groups in a flag too big to store: ≈1.2 MB of JSON, past the log's 1 MiB append limit. */
const BIG_GROUPS = 10_000

const I = {
  healthy: 'the service becomes healthy after a restart',
  onePlace: 'every tile is on at most one dashboard',
  somewhere: 'every live tile is on exactly one dashboard once settled',
  noTwins: 'no dashboard lists a tile twice',
  oneFlagPerKey: 'at most one live flag per key per environment',
  keyUsable: 'a key with no live flag can be created (201)',
  acknowledged: 'acknowledged writes stay visible',
  no5xx: 'no request is answered 5xx',
  verify: '`hedgelog verify` exits 0 after the last restart',
} as const

type Cmd =
  | { kind: 'rename'; d: number }
  | { kind: 'addTile'; d: number }
  | { kind: 'deleteTile'; tile: number }
  | { kind: 'restoreTile'; tile: number }
  | { kind: 'deleteDashboard'; d: number }
  | { kind: 'restoreDashboard'; d: number }
  | { kind: 'moveTile'; tile: number; to: number[] }
  | { kind: 'addCollaborator'; d: number; user: number }
  | { kind: 'removeCollaborator'; d: number; user: number }
  | { kind: 'createFlags'; key: number; copies: number }
  | { kind: 'bigCreate'; key: number; alongside: boolean }
  | { kind: 'renameFlag'; flag: number; key: number }
  | { kind: 'deleteFlag'; flag: number }
  | { kind: 'restoreFlag'; flag: number }

interface Epoch {
  /** Run one after another; the commands of a wave run concurrently. */
  readonly waves: Cmd[][]
  /** SIGKILL `killDelayMs` after wave `killAtWave` (modulo the number of waves) was sent. */
  readonly killAtWave: number
  readonly killDelayMs: number
}

const index = fc.nat(1000)
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rename' as const), d: index }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('addTile' as const), d: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteTile' as const), tile: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restoreTile' as const), tile: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteDashboard' as const), d: index }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('restoreDashboard' as const), d: index }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('moveTile' as const), tile: index, to: fc.array(index, { minLength: 1, maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('addCollaborator' as const), d: index, user: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeCollaborator' as const), d: index, user: index }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('createFlags' as const), key: index, copies: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bigCreate' as const), key: index, alongside: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('renameFlag' as const), flag: index, key: index }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deleteFlag' as const), flag: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restoreFlag' as const), flag: index }) },
)
const epoch: fc.Arbitrary<Epoch> = fc.record({
  waves: fc.array(fc.array(cmd, { minLength: 1, maxLength: 4 }), { minLength: 3, maxLength: 8 }),
  killAtWave: fc.nat(7),
  killDelayMs: fc.integer({ min: 0, max: 80 }),
})
/** Each epoch ends with a kill; at least two kills per run. */
const plan = fc.array(epoch, { minLength: 2, maxLength: 3 })

interface Installation {
  readonly dir: string
  readonly environmentId: number
  readonly key: string
  readonly members: string[]
}

interface Violation {
  readonly invariant: string
  readonly phase: string
  readonly detail: string
}

interface Dash {
  readonly id: number
  readonly restricted: boolean
  readonly name: Register<string>
  readonly deleted: Register<boolean>
  readonly collaborators: Map<string, Register<boolean>>
}

interface Tile {
  /** Unique per added tile, kept by moves: how a tile whose add was cut off is recognised. */
  readonly body: string
  id: number | null
  readonly location: Register<number>
  readonly visible: Register<boolean>
  /** Where it was last known to be: where commands address it (a wrong guess answers 4xx). */
  hint: number
}

interface Flag {
  readonly id: number
  readonly key: Register<string>
  readonly deleted: Register<boolean>
}

interface Seen {
  readonly deleted: boolean
  readonly name: string
  readonly tiles: { id: number; body: string }[]
}

class StopRun extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const outcomeOf = (answer: Answer): Outcome | null => {
  if (answer.status >= 200 && answer.status < 300) return 'acked'
  if (answer.status >= 500) return 'unknown'
  if (answer.status === 0 && !answer.refused) return 'unknown'
  return null
}

const bigBodies = new Map<string, string>()
const bigBody = (key: string): string => {
  let body = bigBodies.get(key)
  if (!body) {
    const groups = Array.from({ length: BIG_GROUPS }, (_, i) => ({
      properties: [{ key: 'email', value: `someone-${i}@example.com`, operator: 'exact', type: 'person' }], rollout_percentage: 50,
    }))
    body = JSON.stringify({ key, name: 'too big to store', filters: { groups } })
    bigBodies.set(key, body)
  }
  return body
}

/** One run of a plan on a fresh copy of the installation. */
class CrashRun {
  readonly violations: Violation[] = []
  readonly dashboards: Dash[] = []
  readonly tiles: Tile[] = []
  readonly flags: Flag[] = []
  /** Keys a cut-off request may have claimed: until then a create may rightly be refused (ABANDONED_CLAIM_MS). */
  readonly claimedUntil = new Map<string, number>()
  readonly http: RecordedHttp
  private counter = 0
  private probesSkipped = 0
  private probes = 0
  killsWithRequestsInFlight = 0
  /** Milliseconds from each restart's spawn until /_health reported every projection caught up. */
  readonly restarts: number[] = []

  constructor(
    private readonly t: Test,
    private readonly service: ServiceProcess,
    private readonly installation: Installation,
    private readonly env: Record<string, string>,
    private readonly runNumber: number,
  ) {
    this.http = new RecordedHttp(() => `${service.address}/api/environments/${installation.environmentId}`, { authorization: `Bearer ${installation.key}` })
  }

  /** What was reported already, so that a broken state that lasts is reported once, where it first showed. */
  private readonly reported = new Set<string>()

  private violation(invariant: string, detail: string, phase = this.http.phase): void {
    const signature = `${invariant}|${detail.split('\n')[0]}`
    if (this.reported.has(signature)) return
    this.reported.add(signature)
    this.violations.push({ invariant, phase, detail })
  }

  private async send(method: string, path: string, body: unknown, label: string, tags: string[]): Promise<Answer> {
    const answer = await this.http.send(method, path, body, label, tags)
    if (answer.status >= 500) this.violation(I.no5xx, `${label}: ${method} ${path} answered ${answer.status} ${answer.text.slice(0, 200)}`)
    return answer
  }

  private write<V extends string | number | boolean>(register: Register<V>, value: V, answer: Answer, label: string): void {
    const outcome = outcomeOf(answer)
    if (outcome) register.record({ value, start: answer.start, end: answer.end, outcome, label: `${label} (${answer.status || answer.error})` })
  }

  private pick<T>(items: readonly T[], i: number): T | undefined {
    return items.length === 0 ? undefined : items[i % items.length]
  }

  private dash(i: number): Dash {
    return this.dashboards[i % this.dashboards.length]!
  }

  private placedTiles(): Tile[] {
    return this.tiles.filter((tile) => tile.id !== null)
  }

  /** A flag request whose answer never came may have claimed these keys without the flag taking them. */
  private mayHaveClaimed(answer: Answer, keys: Iterable<string>): void {
    if (answer.status !== 0 || answer.refused) return
    const until = Date.now() + ABANDONED_CLAIM_MS + 2_000
    for (const key of keys) this.claimedUntil.set(key, Math.max(until, this.claimedUntil.get(key) ?? 0))
  }

  // ---------------------------------------------------------------- setup

  async setUp(): Promise<void> {
    this.http.phase = 'setup'
    for (const [i, restricted] of RESTRICTED.entries()) {
      const name = `dashboard ${i}`
      const created = await this.send('POST', '/dashboards/', { name, restriction_level: restricted ? 37 : 21 }, `create dashboard ${i}`, [])
      if (created.status !== 201) throw new Error(`setup: creating a dashboard answered ${created.status} ${created.text}`)
      const collaborators = new Map(this.installation.members.map((uuid) => [uuid, new Register([false])]))
      this.dashboards.push({ id: created.json.id, restricted, name: new Register([name]), deleted: new Register([false]), collaborators })
    }
    for (const dashboard of this.dashboards) {
      for (let i = 0; i < TILES_PER_DASHBOARD; i++) await this.addTile(dashboard, true)
    }
    for (const key of KEYS.slice(0, 3)) {
      const created = await this.send('POST', '/feature_flags/', { key }, `create flag ${key}`, [`key:${key}`])
      if (created.status !== 201) throw new Error(`setup: creating flag ${key} answered ${created.status} ${created.text}`)
      this.flags.push({ id: created.json.id, key: new Register([key]), deleted: new Register([false]) })
    }
  }

  // ---------------------------------------------------------------- commands

  private async addTile(dashboard: Dash, required = false): Promise<void> {
    const body = `tile r${this.runNumber}-${++this.counter}`
    const tile: Tile = { body, id: null, location: new Register<number>([]), visible: new Register([false]), hint: dashboard.id }
    this.tiles.push(tile)
    const label = `add ${body} to dashboard ${dashboard.id}`
    const answer = await this.send('PATCH', `/dashboards/${dashboard.id}/`, { tiles: [{ text: { body } }] }, label, [`dash:${dashboard.id}`, `tile:${body}`])
    if (required && answer.status !== 200) throw new Error(`setup: adding a tile answered ${answer.status} ${answer.text}`)
    if (outcomeOf(answer) === null) {
      this.tiles.splice(this.tiles.indexOf(tile), 1)
      return
    }
    if (answer.status === 200) {
      const added = (answer.json.tiles as { id: number; text: { body: string } | null }[]).find((x) => x.text?.body === body)
      if (added) tile.id = added.id
    }
    this.write(tile.location, dashboard.id, answer, label)
    this.write(tile.visible, true, answer, label)
  }

  private async patchTile(i: number, deleted: boolean): Promise<void> {
    const tile = this.pick(this.placedTiles(), i)
    if (!tile) return
    const label = `${deleted ? 'delete' : 'restore'} tile ${tile.id} (${tile.body}) on dashboard ${tile.hint}`
    const at = tile.hint
    const answer = await this.send('PATCH', `/dashboards/${at}/`, { tiles: [{ id: tile.id, deleted }] }, label, [`dash:${at}`, `tile:${tile.body}`])
    // Acknowledged, it also says the tile was on that dashboard then.
    this.write(tile.location, at, answer, label)
    this.write(tile.visible, !deleted, answer, label)
  }

  private async moveTile(i: number, to: number[]): Promise<void> {
    const tile = this.pick(this.placedTiles(), i)
    if (!tile) return
    const from = tile.hint
    const others = this.dashboards.filter((d) => d.id !== from)
    await Promise.all(to.map(async (j) => {
      const destination = others[j % others.length]!.id
      const label = `move tile ${tile.id} (${tile.body}) from dashboard ${from} to ${destination}`
      const answer = await this.send('PATCH', `/dashboards/${from}/move_tile/`, { tile: { id: tile.id }, toDashboard: destination }, label,
        [`dash:${from}`, `dash:${destination}`, `tile:${tile.body}`])
      this.write(tile.location, destination, answer, label)
      // Only a live tile can be moved, and it arrives live.
      this.write(tile.visible, true, answer, label)
      if (answer.status === 200) tile.hint = destination
    }))
  }

  private async patchDashboard(dashboard: Dash, change: { name: string } | { deleted: boolean }): Promise<void> {
    const label = 'name' in change ? `rename dashboard ${dashboard.id} to ${JSON.stringify(change.name)}` : `${change.deleted ? 'delete' : 'restore'} dashboard ${dashboard.id}`
    const answer = await this.send('PATCH', `/dashboards/${dashboard.id}/`, change, label, [`dash:${dashboard.id}`])
    if ('name' in change) this.write(dashboard.name, change.name, answer, label)
    else this.write(dashboard.deleted, change.deleted, answer, label)
  }

  private async collaborator(dashboard: Dash, user: number, add: boolean): Promise<void> {
    const uuid = this.installation.members[user % this.installation.members.length]!
    const label = `${add ? 'add' : 'remove'} collaborator ${uuid.slice(0, 8)} ${add ? 'to' : 'from'} dashboard ${dashboard.id}`
    const tags = [`dash:${dashboard.id}`, `collaborator:${dashboard.id}:${uuid}`]
    const answer = add
      ? await this.send('POST', `/dashboards/${dashboard.id}/collaborators/`, { user_uuid: uuid, level: 37 }, label, tags)
      : await this.send('DELETE', `/dashboards/${dashboard.id}/collaborators/${uuid}/`, undefined, label, tags)
    this.write(dashboard.collaborators.get(uuid)!, add, answer, label)
  }

  private async createFlag(key: string, big: boolean): Promise<void> {
    const label = big ? `create flag ${key} with ${BIG_GROUPS} condition groups` : `create flag ${key}`
    const answer = await this.send('POST', '/feature_flags/', big ? bigBody(key) : { key }, label, [`key:${key}`])
    this.mayHaveClaimed(answer, [key])
    if (answer.status === 201) this.flags.push({ id: answer.json.id, key: new Register([key]), deleted: new Register([false]) })
  }

  private async patchFlag(i: number, change: { key: string } | { deleted: boolean }): Promise<void> {
    const flag = this.pick(this.flags, i)
    if (!flag) return
    const keys = flag.key.possible()
    const label = 'key' in change ? `change key of flag ${flag.id} (${keys.join('|')}) to ${change.key}` : `${change.deleted ? 'delete' : 'restore'} flag ${flag.id} (${keys.join('|')})`
    const touched = 'key' in change ? [...keys, change.key] : keys
    const answer = await this.send('PATCH', `/feature_flags/${flag.id}/`, change, label, [`flag:${flag.id}`, ...touched.map((k) => `key:${k}`)])
    this.mayHaveClaimed(answer, touched)
    if ('key' in change) this.write(flag.key, change.key, answer, label)
    else this.write(flag.deleted, change.deleted, answer, label)
  }

  async exec(command: Cmd): Promise<void> {
    switch (command.kind) {
      case 'rename': return this.patchDashboard(this.dash(command.d), { name: `name ${++this.counter}` })
      case 'addTile': return this.addTile(this.dash(command.d))
      case 'deleteTile': return this.patchTile(command.tile, true)
      case 'restoreTile': return this.patchTile(command.tile, false)
      case 'deleteDashboard': return this.patchDashboard(this.dash(command.d), { deleted: true })
      case 'restoreDashboard': return this.patchDashboard(this.dash(command.d), { deleted: false })
      case 'moveTile': return this.moveTile(command.tile, command.to)
      case 'addCollaborator': return this.collaborator(this.dash(command.d), command.user, true)
      case 'removeCollaborator': return this.collaborator(this.dash(command.d), command.user, false)
      case 'createFlags': {
        const key = KEYS[command.key % KEYS.length]!
        await Promise.all(Array.from({ length: command.copies }, () => this.createFlag(key, false)))
        return
      }
      case 'bigCreate': {
        const key = BIG_KEYS[command.key % BIG_KEYS.length]!
        await Promise.all([this.createFlag(key, true), ...(command.alongside ? [this.createFlag(key, false)] : [])])
        return
      }
      case 'renameFlag': return this.patchFlag(command.flag, { key: KEYS[command.key % KEYS.length]! })
      case 'deleteFlag': return this.patchFlag(command.flag, { deleted: true })
      case 'restoreFlag': return this.patchFlag(command.flag, { deleted: false })
    }
  }

  /** The waves of an epoch, with a SIGKILL while they run; resolves once every request has ended. */
  async epoch(e: Epoch, n: number): Promise<void> {
    this.http.phase = `epoch ${n}`
    const killAt = e.killAtWave % e.waves.length
    let killed = false
    let killing: Promise<void> | null = null
    const pending: Promise<void>[] = []
    const inFlight = new Set<Promise<void>>()
    const kill = () => {
      killed = true
      if (inFlight.size > 0) this.killsWithRequestsInFlight++
      killing = this.service.kill()
    }
    for (let w = 0; w < e.waves.length && !killed; w++) {
      const wave = Promise.all(e.waves[w]!.map((c) => this.exec(c))).then(() => undefined)
      inFlight.add(wave)
      void wave.finally(() => inFlight.delete(wave)).catch(() => undefined)
      pending.push(wave)
      if (w >= killAt) {
        await Promise.race([sleep(e.killDelayMs).then(() => { if (!killed) kill() }), wave])
        if (!killed) {
          // The wave was answered before the delay was up: kill while the next one runs.
          if (w + 1 < e.waves.length) continue
          kill()
        }
      }
      await wave
    }
    if (!killed) kill()
    await killing
    await Promise.all(pending)
  }

  // ---------------------------------------------------------------- checks

  private async readDashboards(): Promise<Map<number, Seen> | null> {
    const seen = new Map<number, Seen>()
    for (const dashboard of this.dashboards) {
      let answer = await this.send('GET', `/dashboards/${dashboard.id}/`, undefined, `read dashboard ${dashboard.id}`, [])
      if (answer.status === 404) {
        // A soft-deleted dashboard: its state now, tiles included, from the history route.
        answer = await this.send('GET', `/dashboards/${dashboard.id}/?as_of=${new Date().toISOString()}`, undefined, `read deleted dashboard ${dashboard.id}`, [])
      }
      if (answer.status !== 200) {
        this.violation(I.acknowledged, `dashboard ${dashboard.id} (created and acknowledged) cannot be read: ${answer.status} ${answer.text.slice(0, 200)}`)
        return null
      }
      const tiles = (answer.json.tiles as { id: number; text: { body: string } | null }[]).map((x) => ({ id: x.id, body: x.text?.body ?? '' }))
      seen.set(dashboard.id, { deleted: answer.json.deleted === true, name: answer.json.name, tiles })
    }
    return seen
  }

  private tileHistory(tile: Tile): string {
    return `  requests that touched ${tile.body}:\n${this.http.history(`tile:${tile.body}`)}`
  }

  /** Where each of our tiles is, and what is wrong with the tile placement. */
  private placement(seen: Map<number, Seen>): { where: Map<Tile, number[]>; problems: Violation[] } {
    const problems: Violation[] = []
    const byBody = new Map(this.tiles.map((tile) => [tile.body, tile]))
    const where = new Map<Tile, number[]>()
    for (const [dashboardId, dashboard] of seen) {
      const counts = new Map<number, number>()
      for (const { id, body } of dashboard.tiles) {
        counts.set(id, (counts.get(id) ?? 0) + 1)
        const tile = byBody.get(body)
        if (!tile) continue
        const places = where.get(tile) ?? []
        if (!places.includes(dashboardId)) places.push(dashboardId)
        where.set(tile, places)
      }
      for (const [id, count] of counts) {
        if (count < 2) continue
        const tile = this.tiles.find((candidate) => candidate.id === id) ?? dashboard.tiles.map((x) => byBody.get(x.body)).find((x) => x?.id === id)
        problems.push({ invariant: I.noTwins, phase: this.http.phase, detail: `dashboard ${dashboardId} lists tile ${id} ${count} times\n  its tiles: ${dashboard.tiles.map((x) => x.id).join(', ')}\n${tile ? this.tileHistory(tile) : ''}` })
      }
    }
    for (const tile of this.tiles) {
      const places = where.get(tile) ?? []
      if (places.length > 1) {
        problems.push({ invariant: I.onePlace, phase: this.http.phase, detail: `tile ${tile.id ?? '?'} (${tile.body}) is on dashboards ${places.join(' and ')}\n${this.tileHistory(tile)}` })
      } else if (places.length === 0 && tile.id !== null && tile.visible.certainly(true)) {
        problems.push({ invariant: I.somewhere, phase: this.http.phase, detail: `tile ${tile.id} (${tile.body}) is on no dashboard, though it was last added, moved or restored with an acknowledgement and not deleted since\n${this.tileHistory(tile)}` })
      }
    }
    return { where, problems }
  }

  /** Starts the service and waits until every projection has caught up; a service that does not get there ends the run. */
  async start(): Promise<void> {
    const spawned = performance.now()
    try {
      await this.service.start()
    } catch (error) {
      this.violation(I.healthy, `the start failed: ${(error as Error).message}`)
      throw new StopRun()
    }
    const health = await this.service.caughtUp(HEALTHY_WITHIN_MS)
    if (!health.caughtUp) {
      this.violation(I.healthy, `/_health after ${HEALTHY_WITHIN_MS} ms: ${health.status} ${health.body.slice(0, 600)}`)
      throw new StopRun()
    }
    if (this.http.phase !== '') this.restarts.push(Math.round(performance.now() - spawned))
  }

  async restartAndCheck(stage: string): Promise<void> {
    this.http.phase = stage
    await this.start()

    // Tiles, given a bounded time to settle what a kill left half done.
    const deadline = performance.now() + SETTLE_MS
    let seen: Map<number, Seen> | null
    let placement: ReturnType<CrashRun['placement']>
    for (;;) {
      seen = await this.readDashboards()
      if (!seen) throw new StopRun()
      placement = this.placement(seen)
      if (placement.problems.length === 0 || performance.now() > deadline) break
      await sleep(200)
    }
    for (const problem of placement.problems) this.violation(problem.invariant, `${problem.detail}\n  (still so ${SETTLE_MS} ms after the service was healthy)`)

    for (const tile of [...this.tiles]) {
      const places = placement.where.get(tile) ?? []
      if (tile.id === null) {
        // Its add was cut off: it exists if it was seen.
        const found = seen.get(places[0] ?? -1)?.tiles.find((x) => x.body === tile.body)
        if (!found) {
          this.tiles.splice(this.tiles.indexOf(tile), 1)
          continue
        }
        tile.id = found.id
      }
      const possible = tile.location.possible()
      const unexpected = places.filter((place) => !possible.includes(place))
      if (unexpected.length > 0) {
        this.violation(I.acknowledged, `tile ${tile.id} (${tile.body}) is on dashboard ${unexpected.join(' and ')}, but the acknowledged requests leave it on ${possible.join(' or ') || 'none'}\n  ${tile.location.describe()}\n${this.tileHistory(tile)}`)
      }
      if (places.length > 0) {
        tile.location.observedAmong(places)
        tile.hint = places[0]!
      } else {
        tile.location.unobserved()
      }
      tile.visible.observed(places.length > 0)
    }

    for (const dashboard of this.dashboards) {
      const now = seen.get(dashboard.id)!
      this.compare(dashboard.name, now.name, `name of dashboard ${dashboard.id}`, `dash:${dashboard.id}`)
      this.compare(dashboard.deleted, now.deleted, `deleted of dashboard ${dashboard.id}`, `dash:${dashboard.id}`)
      if (now.deleted) {
        for (const register of dashboard.collaborators.values()) register.unobserved()
        continue
      }
      const answer = await this.send('GET', `/dashboards/${dashboard.id}/collaborators/`, undefined, `read collaborators of dashboard ${dashboard.id}`, [])
      if (answer.status !== 200) {
        this.violation(I.acknowledged, `the collaborators of live dashboard ${dashboard.id} cannot be read: ${answer.status} ${answer.text.slice(0, 200)}`)
        continue
      }
      const present = new Set((answer.json as { user_uuid: string }[]).map((c) => c.user_uuid))
      for (const [uuid, register] of dashboard.collaborators) {
        this.compare(register, present.has(uuid), `collaborator ${uuid.slice(0, 8)} of dashboard ${dashboard.id}`, `collaborator:${dashboard.id}:${uuid}`)
      }
    }

    await this.checkFlags()
  }

  private compare<V extends string | number | boolean>(register: Register<V>, value: V, what: string, tag: string): void {
    const possible = register.possible()
    if (!possible.includes(value)) {
      this.violation(I.acknowledged, `${what} is ${JSON.stringify(value)}, but the acknowledged requests leave it ${possible.map((v) => JSON.stringify(v)).join(' or ')}\n  ${register.describe()}\n  requests:\n${this.http.history(tag)}`)
    }
    register.observed(value)
  }

  private async checkFlags(): Promise<void> {
    const listed = await this.send('GET', '/feature_flags/?limit=1000', undefined, 'list flags', [])
    if (listed.status !== 200) {
      this.violation(I.acknowledged, `the flag list cannot be read: ${listed.status} ${listed.text.slice(0, 200)}`)
      return
    }
    const live = listed.json.results as { id: number; key: string }[]
    const byKey = new Map<string, number[]>()
    for (const flag of live) byKey.set(flag.key, [...(byKey.get(flag.key) ?? []), flag.id])
    for (const [key, ids] of byKey) {
      if (ids.length > 1) this.violation(I.oneFlagPerKey, `flags ${ids.join(', ')} are all live with key ${key}\n  requests that named ${key}:\n${this.http.history(`key:${key}`)}`)
    }
    for (const flag of live) {
      // A flag whose create was cut off, found live.
      if (!this.flags.some((f) => f.id === flag.id)) this.flags.push({ id: flag.id, key: new Register([flag.key]), deleted: new Register([false]) })
    }
    for (const flag of this.flags) {
      const listedFlag = live.find((f) => f.id === flag.id)
      let now: { key: string; deleted: boolean }
      if (listedFlag) {
        now = { key: listedFlag.key, deleted: false }
      } else {
        const past = await this.send('GET', `/feature_flags/${flag.id}/?as_of=${new Date().toISOString()}`, undefined, `read deleted flag ${flag.id}`, [`flag:${flag.id}`])
        if (past.status !== 200) {
          this.violation(I.acknowledged, `flag ${flag.id}, whose create was acknowledged, is neither listed nor readable: ${past.status} ${past.text.slice(0, 200)}\n  requests:\n${this.http.history(`flag:${flag.id}`)}`)
          flag.key.unobserved()
          flag.deleted.unobserved()
          continue
        }
        now = { key: past.json.key, deleted: past.json.deleted === true }
        if (!now.deleted) this.violation(I.acknowledged, `flag ${flag.id} is live (key ${now.key}) but missing from the flag list`)
      }
      this.compare(flag.key, now.key, `key of flag ${flag.id}`, `flag:${flag.id}`)
      this.compare(flag.deleted, now.deleted, `deleted of flag ${flag.id}`, `flag:${flag.id}`)
    }

    // Every key no live flag holds can be created again (and is released again for the next epoch).
    for (const key of [...KEYS, ...BIG_KEYS]) {
      if (byKey.has(key)) continue
      if ((this.claimedUntil.get(key) ?? 0) > Date.now()) {
        this.probesSkipped++
        continue
      }
      this.probes++
      const created = await this.send('POST', '/feature_flags/', { key }, `create flag ${key} (no live flag has it)`, [`key:${key}`])
      if (created.status !== 201) {
        this.violation(I.keyUsable, `no live flag has key ${key}, yet creating one answered ${created.status} ${created.text.slice(0, 200)}\n  requests that named ${key}:\n${this.http.history(`key:${key}`)}`)
        continue
      }
      const flag: Flag = { id: created.json.id, key: new Register([key]), deleted: new Register([false]) }
      this.flags.push(flag)
      const removed = await this.send('PATCH', `/feature_flags/${flag.id}/`, { deleted: true }, `delete flag ${flag.id} (${key}) again`, [`flag:${flag.id}`, `key:${key}`])
      this.write(flag.deleted, true, removed, `delete flag ${flag.id}`)
    }
  }

  async verify(): Promise<void> {
    this.http.phase = 'verify'
    const code = await this.service.stop()
    if (code !== 0 && code !== null) this.t.comment(`run ${this.runNumber}: the server exited with ${code} on SIGTERM`)
    const verified = await runCli(['verify'], this.env)
    if (verified.code !== 0) this.violation(I.verify, `exit ${verified.code}: ${(verified.stdout + verified.stderr).slice(0, 1000)}`)
  }

  summary(): string {
    const requests = this.http.entries
    const count = (p: (status: number) => boolean) => requests.filter((e) => p(e.status)).length
    return `${requests.length} requests (${count((s) => s >= 200 && s < 300)} 2xx, ${count((s) => s >= 400 && s < 500)} 4xx, ${count((s) => s >= 500)} 5xx, ${count((s) => s === 0)} without an answer), `
      + `${this.killsWithRequestsInFlight} kills with requests in flight, restarts healthy after ${this.restarts.join(', ')} ms, ${this.probes} key probes (${this.probesSkipped} skipped for claims a kill may have left)`
  }

  /** Which invariants broke, then up to three counter-examples of each with the requests behind them. */
  report(): string {
    const invariants = [...new Set(this.violations.map((v) => v.invariant))]
    const lines = [`run ${this.runNumber} broke: ${invariants.map((i) => `"${i}" (${this.violations.filter((v) => v.invariant === i).length}x)`).join(', ')}`, `${this.summary()}`]
    for (const invariant of invariants) {
      const cases = this.violations.filter((v) => v.invariant === invariant)
      for (const v of cases.slice(0, 3)) lines.push('', `[${v.invariant}] ${v.phase}: ${v.detail}`)
      if (cases.length > 3) lines.push('', `[${invariant}] … and ${cases.length - 3} more`)
    }
    return lines.join('\n')
  }
}

/** An installation made once (organization, unscoped key, two members), copied for every run. */
const install = async (t: Test): Promise<Installation> => {
  const dir = tempDir(t, 'hedgelog-crash-template-')
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off', LOG_LEVEL: 'warn' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { environment_id: number; organization_id: string; personal_api_key: string }
  const unscoped = JSON.parse((await runCli(['keys', 'create', '--unscoped', '--json'], env)).stdout) as { personal_api_key: string }
  const service = new ServiceProcess(t, { ...env, LOG_LEVEL: 'info' })
  await service.start()
  const members: string[] = []
  const invites = await Promise.all(Array.from({ length: MEMBERS }, async (_, i) => {
    const response = await fetch(`${service.address}/api/organizations/${init.organization_id}/invites/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${init.personal_api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ target_email: `member-${i}@example.com`, first_name: `Member${i}`, level: 1, send_email: false }),
    })
    const body = await response.json() as { id: string }
    if (response.status !== 201) throw new Error(`inviting a member answered ${response.status} ${JSON.stringify(body)}`)
    return body.id
  }))
  for (const [i, id] of invites.entries()) {
    const accepted = await runCli(['invites', 'accept', id, '--first-name', `Member${i}`, '--json'], env)
    if (accepted.code !== 0) throw new Error(`invites accept: ${accepted.stderr}`)
    members.push((JSON.parse(accepted.stdout) as { user_uuid: string }).user_uuid)
  }
  await service.caughtUp(HEALTHY_WITHIN_MS)
  await service.stop()
  return { dir, environmentId: init.environment_id, key: unscoped.personal_api_key, members }
}

t.test('random concurrent management commands with SIGKILLs keep the model\'s invariants', { timeout: 110_000 }, async (t) => {
  const began = Date.now()
  const template = await install(t)
  let runNumber = 0
  const summaries: string[] = []

  let skippedForTime = 0
  const property = fc.asyncProperty(plan, async (epochs) => {
    // fast-check's own time limit abandons a run midway (its server still running); this one only starts none.
    if (Date.now() - began > NEW_RUNS_UNTIL_MS) {
      skippedForTime++
      return
    }
    const run = ++runNumber
    const dir = tempDir(t, 'hedgelog-crash-run-')
    cpSync(template.dir, dir, { recursive: true })
    const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off', LOG_LEVEL: 'info' }
    const service = new ServiceProcess(t, env)
    const crash = new CrashRun(t, service, { ...template, dir }, env, run)
    try {
      await crash.start()
      await crash.setUp()
      for (const [n, e] of epochs.entries()) {
        await crash.epoch(e, n + 1)
        await crash.restartAndCheck(`after kill ${n + 1}`)
      }
      await crash.verify()
    } catch (error) {
      if (!(error instanceof StopRun)) throw error
    } finally {
      await service.kill()
    }
    summaries.push(`run ${run}: ${crash.summary()}`)
    const dump = process.env['HEDGELOG_CRASH_DUMP']
    if (dump) writeFileSync(`${dump}-${run}.log`, crash.http.entries.map((e) => `#${e.n} [${e.phase}] ${e.label}: ${e.method} ${e.path} → ${e.status} ${e.detail} (${e.ms} ms)`).join('\n'))
    if (crash.violations.length > 0) throw new Error(crash.report())
  })

  const seed = process.env['HEDGELOG_CRASH_SEED']
  const path = process.env['HEDGELOG_CRASH_PATH']
  const details = await fc.check(property, {
    numRuns: NUM_RUNS,
    endOnFailure: true,
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...(path === undefined ? {} : { path }),
  })
  for (const line of summaries) t.comment(line)
  t.comment(`${runNumber} run(s) in ${Math.round((Date.now() - began) / 1000)} s (${skippedForTime} not started for lack of time), seed ${details.seed}`)
  if (details.failed) {
    const message = (details.errorInstance as Error | null)?.message ?? String(details.errorInstance)
    t.fail(message.split('\n')[0]!, {
      diagnostic: true,
      report: message,
      replay: `HEDGELOG_CRASH_SEED=${details.seed} HEDGELOG_CRASH_PATH=${details.counterexamplePath} npx tap dist/test/crash/random-commands.test.js`,
      counterexample: fc.stringify(details.counterexample),
    })
  } else {
    t.ok(runNumber >= 1, `${runNumber} run(s) kept every invariant`)
  }
})
