import { comparePositions, type Position } from '../src/eventlog/port.js'
import type { RunnerStatus } from '../src/readstore/projections.js'
import { checkpointName, type Build } from '../src/readstore/names.js'
import { partitionsOf, type Partition } from '../src/readstore/partition.js'
import { ProjectionRunner, type RunnerOptions } from './runner.js'
import type { Projector } from '../src/readstore/projector.js'
import { PositionWaiters } from './waiters.js'

/**
 * How often a process renews its membership and leases and looks at who should run what (a
 * third of the lease when that is shorter): a process that joins gets its share within it.
 */
const TICK_MS = 250

/** How often the checkpoints of partitions run elsewhere are read. */
const REFRESH_MS = 100

/** A member not heard from for this long is removed from the list. */
const FORGET_AFTER_MS = 3_600_000

/** Where the members of a partitioned build are listed: one document per process, renewed while it runs. */
export const PROJECTION_MEMBERS = 'projection_members'

export interface PartitionGroupOptions extends Omit<RunnerOptions, 'partition' | 'onAdvance' | 'onLive'> {
  readonly build: Build & { readonly partitions: number }
  /** Names this process among the others that run partitions of the same build (`host/pid/boot`). */
  readonly owner: string
  /** How long a partition's lease, and a process's membership, lasts unless renewed. Default 10 s. */
  readonly leaseMs?: number
  readonly onAdvance?: (position: Position) => void
  readonly onLive?: () => void
}

/**
 * The partitions of one build that this process runs, each with a runner of its own, shared with
 * the other processes running the same build through leases in the read store.
 *
 * Every process lists itself as a member, renewed four times a second. The members, in
 * name order, take the partitions in turn (partition p goes to member p mod n), each holding a
 * lease on its partitions; a process that is no longer a partition's member lets it go, and a
 * partition whose process died is taken over once its lease has run out, from its checkpoint.
 * Two runners of one partition can never both commit (each commit moves the checkpoint it
 * read), so a lease only spares the work.
 *
 * The group's position is the least of all its partitions' positions (those run elsewhere as
 * their checkpoints are stored): every event before it has been applied by every partition.
 */
export class PartitionGroup {
  readonly checkpointName: string
  status: RunnerStatus = 'starting'
  lastError: { readonly message: string; readonly at: number } | null = null
  private readonly runners = new Map<number, ProjectionRunner>()
  /** Each partition's position as last seen, run here or not. */
  private readonly positions = new Map<number, Position | null>()
  /** The members as last listed. */
  private lastMembers: string[]
  /** When this process last renewed each partition's lease. */
  private readonly renewed = new Map<number, number>()
  private readonly waiters = new PositionWaiters()
  private readonly partitions: Partition[]
  private readonly leaseMs: number
  private timer: NodeJS.Timeout | undefined
  private refresher: NodeJS.Timeout | undefined
  private ticking: Promise<void> = Promise.resolve()
  private stopped = false
  private liveOnce = false
  /** How many times this process has started a partition's runner: more than it runs now means partitions moved. */
  starts = 0
  /** Set once the first round of leases has been taken. */
  private ticked = false

  constructor(private readonly options: PartitionGroupOptions) {
    this.checkpointName = checkpointName(options.projector.name, options.build)
    this.partitions = partitionsOf(options.build.partitions)
    this.leaseMs = options.leaseMs ?? 10_000
    this.lastMembers = [options.owner]
    if (options.onAdvance) this.waiters.onAdvance = options.onAdvance
  }

  get build(): Build {
    return this.options.build
  }

  get projector(): Projector {
    return this.options.projector
  }

  get position(): Position | null {
    return this.waiters.position
  }

  get movedAt(): number {
    return this.waiters.movedAt
  }

  /** Which partitions this process runs now. */
  get running(): number[] {
    return [...this.runners.keys()].sort((a, b) => a - b)
  }

  async start(): Promise<void> {
    this.status = 'catching_up'
    await this.tick()
    const every = Math.min(TICK_MS, this.leaseMs / 3)
    this.timer = setInterval(() => { this.ticking = this.ticking.then(() => this.tick()).catch((error: unknown) => this.failed(error)) }, every)
    this.timer.unref()
    // Partitions run elsewhere move the group's position too: their checkpoints are read often.
    this.refresher = setInterval(() => void this.refresh().catch(() => undefined), REFRESH_MS)
    this.refresher.unref()
  }

  private async refresh(): Promise<void> {
    if (this.runners.size === this.partitions.length) return
    for (const partition of this.partitions) {
      if (!this.runners.has(partition.index)) this.positions.set(partition.index, await this.options.store.checkpoint(checkpointName(this.options.projector.name, this.options.build, partition)))
    }
    this.settle()
  }

  private failed(error: unknown): void {
    this.lastError = { message: error instanceof Error ? error.message : String(error), at: Date.now() }
    this.options.onError?.(error, false)
  }

  private leaseName(partition: Partition): string {
    return `partition:${checkpointName(this.options.projector.name, this.options.build, partition)}`
  }

  /** The members of the build whose listing has not run out, in name order. */
  private async members(): Promise<string[]> {
    const { store, owner } = this.options
    const group = this.checkpointName
    await store.commit({
      checkpoint: `member:${group}:${owner}`, expected: await store.checkpoint(`member:${group}:${owner}`),
      next: { commit: BigInt(Date.now()), prepare: 0n },
      changes: [{ collection: PROJECTION_MEMBERS, id: `${group}:${owner}`, doc: { group, owner, at: Date.now() } }],
    })
    const listed = await store.find<{ owner: string; at: number }>(PROJECTION_MEMBERS, { where: { group } })
    const alive = listed.filter((member) => member.owner === owner || Date.now() - member.at < this.leaseMs).map((member) => member.owner)
    // Processes long gone are forgotten, so the list stays as short as the processes running.
    const gone = listed.filter((member) => Date.now() - member.at > FORGET_AFTER_MS)
    if (gone.length > 0) {
      await store.commit({
        checkpoint: `member:${group}:${owner}`, expected: await store.checkpoint(`member:${group}:${owner}`),
        next: { commit: BigInt(Date.now()), prepare: 0n },
        changes: gone.map((member) => ({ collection: PROJECTION_MEMBERS, id: `${group}:${member.owner}`, doc: null })),
      })
    }
    return [...new Set(alive)].sort()
  }

  /** Renews this process's membership and leases, starts the partitions it took and stops those it let go. */
  private async tick(): Promise<void> {
    if (this.stopped) return
    const { store, owner } = this.options
    // A listing that fails (the store busy or away) leaves the members as last seen, and the
    // leases are renewed all the same.
    const members = await this.members().catch((error: unknown) => {
      this.failed(error)
      return this.lastMembers
    })
    this.lastMembers = members
    const rank = members.indexOf(owner)
    for (const partition of this.partitions) {
      const mine = partition.index % members.length === rank
      const running = this.runners.get(partition.index)
      if (mine && (await store.acquireLease(this.leaseName(partition), owner, this.leaseMs))) {
        this.renewed.set(partition.index, Date.now())
        if (!running && !this.stopped) await this.run(partition)
        continue
      }
      // A lease not renewed may only mean the store was busy: a partition still ours is let go
      // once its lease has surely run out, and one that is another member's at once.
      const lapsed = Date.now() - (this.renewed.get(partition.index) ?? 0) >= this.leaseMs
      if (running && (!mine || lapsed)) {
        this.runners.delete(partition.index)
        await running.stop()
        await store.releaseLease(this.leaseName(partition), owner)
      }
    }
    this.ticked = true
    await this.refresh()
    this.settle()
  }

  private async run(partition: Partition): Promise<void> {
    const runner = new ProjectionRunner({
      ...this.options,
      partition,
      onAdvance: (position) => {
        this.positions.set(partition.index, position)
        this.settle()
      },
      onLive: () => this.settle(),
    })
    this.runners.set(partition.index, runner)
    this.starts++
    await runner.start()
  }


  /** Moves the group's position to the least of its partitions', and goes live once every partition run here is. */
  private settle(): void {
    let least: Position | null = null
    for (const partition of this.partitions) {
      const at = this.positions.get(partition.index) ?? null
      if (at === null) {
        least = null
        break
      }
      if (least === null || comparePositions(at, least) < 0) least = at
    }
    if (least !== null && !this.waiters.reached(least)) this.waiters.advance(least)
    const runners = [...this.runners.values()]
    if (runners.some((runner) => runner.status === 'failed')) this.status = 'failed'
    else if (!this.liveOnce && this.ticked && runners.every((runner) => runner.status === 'live')) {
      this.liveOnce = true
      this.status = 'live'
      this.options.onLive?.()
    }
  }

  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    if (this.waiters.reached(position)) return Promise.resolve(true)
    if (this.status === 'failed' || this.status === 'stopped') return Promise.resolve(false)
    return this.waiters.wait(position, timeoutMs)
  }

  /** Stops the runners; with `release`, gives their leases back so another process takes them at once. */
  async stop(release = true): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    clearInterval(this.refresher)
    await this.ticking.catch(() => undefined)
    for (const [index, runner] of this.runners) {
      await runner.stop()
      if (release) await this.options.store.releaseLease(this.leaseName(this.partitions[index]!), this.options.owner)
    }
    this.runners.clear()
    if (this.status !== 'failed') this.status = 'stopped'
    this.waiters.release()
  }
}
