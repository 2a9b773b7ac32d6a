import { positionFromString, positionToString, type EventLog, type Position } from '../src/eventlog/port.js'
import type { ReadStore } from '../src/readstore/port.js'
import { checkpointNames, lagBehind, type Build } from '../src/readstore/names.js'
import type { Projector } from '../src/readstore/projector.js'
import { ProjectionRegistry, type RegistryEntry } from './registry.js'
import type { Projections, ProjectionStatus, QuarantinedEvent } from '../src/readstore/projections.js'
import { QUARANTINE, quarantinedEvents } from './quarantine.js'
import { ProjectionRunner, type RunnerOptions } from './runner.js'
import { bulkBuildOptions } from './bulk.js'
import { Signal } from './signal.js'
import { DecodedEvents } from './decoded-events.js'
import { PartitionGroup } from './partition-group.js'
import { processName } from '../src/kernel/process-identity.js'

export interface ProjectionSetOptions {
  readonly log: EventLog
  readonly store: ReadStore
  readonly projectors: readonly Projector[]
  readonly registry: ProjectionRegistry
  /** `fatal` when the projection stopped; otherwise it retries after a backoff. */
  readonly onError?: (projector: string, error: unknown, fatal: boolean) => void
  /** Each event a projection skips, as recorded in the quarantine. */
  readonly onQuarantine?: (projector: string, record: QuarantinedEvent) => void
  /** How long a projection behind the head may go without advancing before it counts as stalled. Default 15 s. */
  readonly stallAfterMs?: number
  /** Each time a projection's active build has applied events up to a new position. */
  readonly onAdvance?: (projector: string, position: Position) => void
  /** When a projection's serving build has caught up with the log for the first time. */
  readonly onLive?: (projector: string) => void
  /** Every few seconds while a serving build catches up: where it is and where the head is. */
  readonly onProgress?: (projector: string, position: string | null, head: string | null) => void
  /**
   * How many partitions the builds of partitioned projectors (`Projector.partitioned`) are made
   * in; a build made in another count is built again beside it and replaced. Default 1.
   */
  readonly partitions?: number
  /** This process among those sharing the partitions of a build. Default: its `host/pid/boot`. */
  readonly owner?: string
  /** How long a partition's lease lasts unless renewed. Default 10 s. */
  readonly partitionLeaseMs?: number
}

/** A build as this process runs it: one runner, or the partitions it holds of a partitioned build. */
type BuildRun = ProjectionRunner | PartitionGroup

/** How often a catching-up projection reports its progress. */
const PROGRESS_EVERY_MS = 5000

interface Slot {
  readonly projector: Projector
  active: BuildRun | null
  pending: BuildRun | null
  /** Rebuilds and switches of one projector happen one at a time. */
  queue: Promise<unknown>
  /** Rebuilds queued or running. */
  building: number
}

/**
 * Runs every projector's active build, and a pending build beside it while a rebuild catches
 * up; the pending build becomes active once it has passed the head of the log as it was when the
 * rebuild began. When a projector's code version changed, the old build cannot be kept current
 * (its code is gone), so `start` waits until the new version has caught up before returning.
 */
export class ProjectionSet implements Projections {
  private readonly slots = new Map<string, Slot>()
  private readonly switches = new Set<Promise<void>>()
  private stopped = false
  private adoption: NodeJS.Timeout | undefined
  private progress: NodeJS.Timeout | undefined
  private readonly caughtUp = new Signal()
  /** What the runners derive from log events (normalised capture requests), computed once for all of them. */
  private readonly decodings = new DecodedEvents()

  constructor(private readonly options: ProjectionSetOptions) {}

  async start(): Promise<void> {
    const upgrades: Promise<void>[] = []
    for (const projector of this.options.projectors) {
      const head = await this.headString()
      const entry = await this.options.registry.update(projector.name, (current) => planBuilds(current, projector.version, head, this.partitionsOf(projector)))
      const slot: Slot = { projector, active: null, pending: null, queue: Promise.resolve(), building: 0 }
      this.slots.set(projector.name, slot)
      if (entry.active.version === projector.version) {
        slot.active = await this.run(projector, entry.active)
        if (slot.active.status === 'live') this.wentLive(projector.name)
      }
      if (entry.pending?.version === projector.version) {
        const switched = this.serialise(slot, () => this.buildBeside(slot, entry.pending!))
        if (!slot.active) upgrades.push(switched)
      }
    }
    await Promise.all(upgrades)
    this.adoption = setInterval(() => void this.adoptPending().catch((error: unknown) => this.options.onError?.('registry', error, false)), 1000)
    this.adoption.unref()
    this.progress = setInterval(() => void this.reportProgress().catch(() => undefined), PROGRESS_EVERY_MS)
    this.progress.unref()
  }

  /** The partitions a build of `projector` is made in: the configured count when it can be partitioned. */
  private partitionsOf(projector: Projector): number {
    return projector.partitioned === true ? Math.max(1, this.options.partitions ?? 1) : 1
  }

  catchingUp(): readonly string[] {
    return [...this.slots.values()].filter((slot) => slot.active?.status !== 'live').map((slot) => slot.projector.name)
  }

  allCaughtUp(): boolean {
    for (const slot of this.slots.values()) if (slot.active?.status !== 'live') return false
    return true
  }

  whenCaughtUp(timeoutMs: number): Promise<boolean> {
    return this.caughtUp.wait(() => this.catchingUp().length === 0, timeoutMs)
  }

  private wentLive(name: string): void {
    this.options.onLive?.(name)
    this.caughtUp.notify()
  }

  private async reportProgress(): Promise<void> {
    const behind = this.catchingUp()
    if (behind.length === 0 || !this.options.onProgress) return
    const head = await this.options.log.headPosition()
    for (const name of behind) {
      const position = this.slots.get(name)?.active?.position ?? null
      this.options.onProgress(name, position?.commit.toString() ?? null, head?.commit.toString() ?? null)
    }
  }

  /** Builds the projection again beside the live one; resolves once the new build is active. */
  async rebuild(name: string): Promise<void> {
    const slot = this.slots.get(name)
    if (!slot) throw new TypeError(`unknown projection: ${name}`)
    await this.serialise(slot, async () => {
      const entry = await requestRebuild(this.options.registry, slot.projector, await this.headString(), this.partitionsOf(slot.projector))
      await this.buildBeside(slot, entry.pending!)
    })
  }

  /**
   * Starts the pending builds that another process registered (`hedgelog quarantine retry`), so a
   * rebuild asked for from the command line happens in the process that runs the projections.
   */
  private async adoptPending(): Promise<void> {
    for (const slot of this.slots.values()) {
      if (this.stopped || slot.building > 0) continue
      const entry = await this.options.registry.read(slot.projector.name)
      const pending = entry?.pending
      if (!pending || pending.version !== slot.projector.version || pending.build === slot.active?.build.build) continue
      void this.serialise(slot, () => this.buildBeside(slot, pending)).catch(() => undefined)
    }
  }

  /** Runs `work` after the slot's earlier rebuilds and switches; failures reach onError. */
  private serialise(slot: Slot, work: () => Promise<void>): Promise<void> {
    slot.building++
    const run = slot.queue.then(work).finally(() => { slot.building-- })
    slot.queue = run.catch((error: unknown) => this.options.onError?.(slot.projector.name, error, false))
    this.switches.add(run)
    void run.then(() => this.switches.delete(run), () => this.switches.delete(run))
    return run
  }

  private async buildBeside(slot: Slot, pending: Build & { switchAt: string }): Promise<void> {
    // Nothing queries a pending build before the switch, and the switch waits for `live`.
    const runner = await this.run(slot.projector, pending, bulkBuildOptions(slot.projector))
    slot.pending = runner
    const target = positionFromString(pending.switchAt)
    while (!this.stopped) {
      if (runner.status === 'failed') return
      const caughtUp = runner.status === 'live' && (target.commit < 0n || (await runner.waitFor(target, 1000)))
      if (caughtUp) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    if (this.stopped) return
    await this.options.registry.update(slot.projector.name, (current) => {
      if (current?.pending && current.pending.build !== pending.build) return current
      return { active: buildOf(pending.version, pending.build, pending.partitions ?? 1), pending: null, lastBuild: Math.max(current?.lastBuild ?? 0, pending.build) }
    })
    const previous = slot.active
    slot.active = runner
    slot.pending = null
    if (runner.status === 'live') this.wentLive(slot.projector.name)
    await previous?.stop()
  }

  private async run(projector: Projector, build: Build, bulk: Pick<RunnerOptions, 'batchSize' | 'indexesWhenLive'> = {}): Promise<BuildRun> {
    const partitions = build.partitions ?? 1
    const options: RunnerOptions = {
      log: this.options.log,
      store: this.options.store,
      projector,
      build,
      decodings: this.decodings,
      ...(projector.batchSize ? { batchSize: projector.batchSize } : {}),
      ...bulk,
      onError: (error, fatal) => this.options.onError?.(projector.name, error, fatal),
      onQuarantine: (change) => this.options.onQuarantine?.(projector.name, change.doc as QuarantinedEvent),
      onAdvance: (position) => {
        if (this.slots.get(projector.name)?.active === runner) this.options.onAdvance?.(projector.name, position)
      },
      onLive: () => {
        if (this.slots.get(projector.name)?.active === runner) this.wentLive(projector.name)
      },
    }
    const runner: BuildRun = partitions > 1
      ? new PartitionGroup({
        ...options, build: { ...build, partitions }, owner: this.options.owner ?? processName(),
        ...(this.options.partitionLeaseMs ? { leaseMs: this.options.partitionLeaseMs } : {}),
      })
      : new ProjectionRunner(options)
    await runner.start()
    return runner
  }

  private async headString(): Promise<string> {
    const head = await this.options.log.headPosition()
    return head ? positionToString(head) : '-1/-1'
  }

  /** The runner serving queries for a projector, if this process runs it. */
  activeRunner(name: string): BuildRun | null {
    return this.slots.get(name)?.active ?? null
  }

  async status(): Promise<Record<string, ProjectionStatus>> {
    const head = await this.options.log.headPosition()
    const out: Record<string, ProjectionStatus> = {}
    const now = Date.now()
    for (const projector of this.options.projectors) {
      const slot = this.slots.get(projector.name)
      const runner = slot?.active ?? null
      const lag = lagBehind(head, runner?.position ?? null)
      out[projector.name] = {
        version: projector.version,
        build: runner?.build.build ?? 0,
        status: runner?.status ?? 'not_running',
        position: runner?.position ? runner.position.commit.toString() : null,
        lag,
        rebuilding: slot?.pending ? { build: slot.pending.build.build, position: slot.pending.position?.commit.toString() ?? null } : null,
        quarantined: runner ? await this.quarantinedCount(runner) : 0,
        stalled: runner !== null && lag > 0 && now - runner.movedAt > (this.options.stallAfterMs ?? 15_000),
        error: runner?.lastError && runner.lastError.at >= runner.movedAt ? runner.lastError.message : null,
        head: head ? head.commit.toString() : null,
      }
    }
    return out
  }

  private async quarantinedCount(run: BuildRun): Promise<number> {
    let count = 0
    for (const checkpoint of checkpointsOf(run)) count += await this.options.store.count(QUARANTINE, { checkpoint })
    return count
  }

  /** The events the active builds skipped, in log order within each projection. */
  async quarantined(): Promise<QuarantinedEvent[]> {
    const checkpoints = [...this.slots.values()].flatMap((slot) => (slot.active ? checkpointsOf(slot.active) : []))
    return quarantinedEvents(this.options.store, checkpoints)
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.adoption)
    clearInterval(this.progress)
    this.caughtUp.notify()
    await Promise.allSettled([...this.switches])
    for (const slot of this.slots.values()) {
      await slot.pending?.stop()
      await slot.active?.stop()
    }
  }
}

/** The checkpoints of a build as it runs: each of its partitions', wherever they run, or its one. */
const checkpointsOf = (run: BuildRun): string[] => (run instanceof PartitionGroup ? checkpointNames(run.projector.name, run.build) : [run.checkpointName])

/** A build of `version` in `partitions`, as the registry records it (a count of one is left out). */
const buildOf = (version: number, build: number, partitions: number): Build =>
  partitions > 1 ? { version, build, partitions } : { version, build }

const sameShape = (build: Build, version: number, partitions: number): boolean =>
  build.version === version && (build.partitions ?? 1) === partitions

/**
 * First start: build 1 is active at once (there is nothing older to serve). A new code version,
 * or another partition count: the old build stays registered as active while the new one is
 * built up to the current head.
 */
export const planBuilds = (current: RegistryEntry | null, version: number, head: string, partitions = 1): RegistryEntry => {
  if (!current) return { active: buildOf(version, 1, partitions), pending: null, lastBuild: 1 }
  if (sameShape(current.active, version, partitions) || (current.pending && sameShape(current.pending, version, partitions))) return current
  const build = current.lastBuild + 1
  return { active: current.active, pending: { ...buildOf(version, build, partitions), switchAt: head }, lastBuild: build }
}

/**
 * Registers a new build of `projector`, to catch up beside the active one and replace it at
 * `head`; in `partitions`, or as many as the active build has.
 */
export const requestRebuild = (registry: ProjectionRegistry, projector: Projector, head: string, partitions?: number): Promise<RegistryEntry> =>
  registry.update(projector.name, (current) => {
    const build = (current?.lastBuild ?? 1) + 1
    return {
      active: current?.active ?? { version: projector.version, build: 1 },
      pending: { ...buildOf(projector.version, build, partitions ?? current?.active.partitions ?? 1), switchAt: head },
      lastBuild: build,
    }
  })
