import { positionFromString, positionToString, type EventLog } from '../src/eventlog/port.js'
import type { ReadStore } from '../src/readstore/port.js'
import { lagBehind, type Build } from './names.js'
import type { Projector } from './projector.js'
import { ProjectionRegistry, type RegistryEntry } from './registry.js'
import { ProjectionRunner, type RunnerStatus } from './runner.js'

export interface ProjectionStatus {
  readonly version: number
  readonly build: number
  readonly status: RunnerStatus | 'not_running'
  /** Decimal commit position of the last event applied, or null before the first. */
  readonly position: string | null
  /** Log positions between the head and `position`: events on SQLite, bytes on EventStoreDB. */
  readonly lag: number
  readonly rebuilding: { readonly build: number; readonly position: string | null } | null
}

export interface ProjectionSetOptions {
  readonly log: EventLog
  readonly store: ReadStore
  readonly projectors: readonly Projector[]
  readonly registry: ProjectionRegistry
  /** `fatal` when the projection stopped; otherwise it retries after a backoff. */
  readonly onError?: (projector: string, error: unknown, fatal: boolean) => void
}

interface Slot {
  readonly projector: Projector
  active: ProjectionRunner | null
  pending: ProjectionRunner | null
  /** Rebuilds and switches of one projector happen one at a time. */
  queue: Promise<unknown>
}

/**
 * Runs every projector's active build, and a pending build beside it while a rebuild catches
 * up; the pending build becomes active once it has passed the head of the log as it was when the
 * rebuild began. When a projector's code version changed, the old build cannot be kept current
 * (its code is gone), so `start` waits until the new version has caught up before returning.
 */
export class ProjectionSet {
  private readonly slots = new Map<string, Slot>()
  private readonly switches = new Set<Promise<void>>()
  private stopped = false

  constructor(private readonly options: ProjectionSetOptions) {}

  async start(): Promise<void> {
    const upgrades: Promise<void>[] = []
    for (const projector of this.options.projectors) {
      const head = await this.headString()
      const entry = await this.options.registry.update(projector.name, (current) => planBuilds(current, projector.version, head))
      const slot: Slot = { projector, active: null, pending: null, queue: Promise.resolve() }
      this.slots.set(projector.name, slot)
      if (entry.active.version === projector.version) slot.active = await this.run(projector, entry.active)
      if (entry.pending?.version === projector.version) {
        const switched = this.serialise(slot, () => this.buildBeside(slot, entry.pending!))
        if (!slot.active) upgrades.push(switched)
      }
    }
    await Promise.all(upgrades)
  }

  /** Builds the projection again beside the live one; resolves once the new build is active. */
  async rebuild(name: string): Promise<void> {
    const slot = this.slots.get(name)
    if (!slot) throw new TypeError(`unknown projection: ${name}`)
    await this.serialise(slot, async () => {
      const head = await this.headString()
      const entry = await this.options.registry.update(name, (current) => ({
        active: current?.active ?? { version: slot.projector.version, build: 1 },
        pending: { version: slot.projector.version, build: (current?.lastBuild ?? 1) + 1, switchAt: head },
        lastBuild: (current?.lastBuild ?? 1) + 1,
      }))
      await this.buildBeside(slot, entry.pending!)
    })
  }

  /** Runs `work` after the slot's earlier rebuilds and switches; failures reach onError. */
  private serialise(slot: Slot, work: () => Promise<void>): Promise<void> {
    const run = slot.queue.then(work)
    slot.queue = run.catch((error: unknown) => this.options.onError?.(slot.projector.name, error, false))
    this.switches.add(run)
    void run.then(() => this.switches.delete(run), () => this.switches.delete(run))
    return run
  }

  private async buildBeside(slot: Slot, pending: Build & { switchAt: string }): Promise<void> {
    const runner = await this.run(slot.projector, pending)
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
      return { active: { version: pending.version, build: pending.build }, pending: null, lastBuild: Math.max(current?.lastBuild ?? 0, pending.build) }
    })
    const previous = slot.active
    slot.active = runner
    slot.pending = null
    await previous?.stop()
  }

  private async run(projector: Projector, build: Build): Promise<ProjectionRunner> {
    const runner = new ProjectionRunner({
      log: this.options.log,
      store: this.options.store,
      projector,
      build,
      ...(projector.batchSize ? { batchSize: projector.batchSize } : {}),
      onError: (error, fatal) => this.options.onError?.(projector.name, error, fatal),
    })
    await runner.start()
    return runner
  }

  private async headString(): Promise<string> {
    const head = await this.options.log.headPosition()
    return head ? positionToString(head) : '-1/-1'
  }

  /** The runner serving queries for a projector, if this process runs it. */
  activeRunner(name: string): ProjectionRunner | null {
    return this.slots.get(name)?.active ?? null
  }

  async status(): Promise<Record<string, ProjectionStatus>> {
    const head = await this.options.log.headPosition()
    const out: Record<string, ProjectionStatus> = {}
    for (const projector of this.options.projectors) {
      const slot = this.slots.get(projector.name)
      const runner = slot?.active ?? null
      out[projector.name] = {
        version: projector.version,
        build: runner?.build.build ?? 0,
        status: runner?.status ?? 'not_running',
        position: runner?.position ? runner.position.commit.toString() : null,
        lag: lagBehind(head, runner?.position ?? null),
        rebuilding: slot?.pending ? { build: slot.pending.build.build, position: slot.pending.position?.commit.toString() ?? null } : null,
      }
    }
    return out
  }

  async stop(): Promise<void> {
    this.stopped = true
    await Promise.allSettled([...this.switches])
    for (const slot of this.slots.values()) {
      await slot.pending?.stop()
      await slot.active?.stop()
    }
  }
}

/**
 * First start: build 1 is active at once (there is nothing older to serve). A new code version:
 * the old build stays registered as active while the new version is built up to the current head.
 */
export const planBuilds = (current: RegistryEntry | null, version: number, head: string): RegistryEntry => {
  if (!current) return { active: { version, build: 1 }, pending: null, lastBuild: 1 }
  if (current.active.version === version || current.pending?.version === version) return current
  return { active: current.active, pending: { version, build: current.lastBuild + 1, switchAt: head }, lastBuild: current.lastBuild + 1 }
}
