import { positionFromString, positionToString, type EventLog, type Position } from '../src/eventlog/port.js'
import type { ReadStore } from '../src/readstore/port.js'
import type { Projector } from './projector.js'
import { ProjectionRegistry, type RegistryEntry } from './registry.js'
import { ProjectionRunner, type RunnerStatus } from './runner.js'
import type { Build } from './names.js'

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
  readonly onError?: (projector: string, error: unknown) => void
}

interface Slot {
  active: ProjectionRunner | null
  pending: ProjectionRunner | null
}

/**
 * Runs every projector's active build, and a pending build beside it when the projector's code
 * version changed or a rebuild was asked for; the pending build becomes active once it has
 * caught up past the head of the log as it was when the rebuild began.
 */
export class ProjectionSet {
  private readonly slots = new Map<string, Slot>()
  private readonly switches = new Set<Promise<void>>()
  private stopped = false

  constructor(private readonly options: ProjectionSetOptions) {}

  async start(): Promise<void> {
    for (const projector of this.options.projectors) {
      const head = await this.headString()
      const entry = await this.options.registry.update(projector.name, (current) => planBuilds(current, projector.version, head))
      const slot: Slot = { active: null, pending: null }
      this.slots.set(projector.name, slot)
      if (entry.active.version === projector.version) slot.active = await this.run(projector, entry.active)
      if (entry.pending?.version === projector.version) this.startPending(projector, slot, entry.pending)
    }
  }

  /** Builds the projection again beside the live one; resolves once the new build is active. */
  async rebuild(name: string): Promise<void> {
    const projector = this.options.projectors.find((p) => p.name === name)
    const slot = this.slots.get(name)
    if (!projector || !slot) throw new TypeError(`unknown projection: ${name}`)
    const head = await this.headString()
    const entry = await this.options.registry.update(name, (current) => ({
      active: current?.active ?? { version: projector.version, build: 1 },
      pending: { version: projector.version, build: (current?.lastBuild ?? 1) + 1, switchAt: head },
      lastBuild: (current?.lastBuild ?? 1) + 1,
    }))
    await slot.pending?.stop()
    await this.startPending(projector, slot, entry.pending!)
  }

  private startPending(projector: Projector, slot: Slot, pending: Build & { switchAt: string }): Promise<void> {
    const switched = (async () => {
      const runner = await this.run(projector, pending)
      slot.pending = runner
      const target = positionFromString(pending.switchAt)
      while (!this.stopped && slot.pending === runner) {
        const caughtUp = runner.status === 'live' && (target.commit < 0n || (await runner.waitFor(target, 1000)))
        if (runner.status === 'failed') return
        if (caughtUp) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      if (this.stopped || slot.pending !== runner) return
      await this.options.registry.update(projector.name, (current) => ({
        active: { version: pending.version, build: pending.build },
        pending: null,
        lastBuild: Math.max(current?.lastBuild ?? 0, pending.build),
      }))
      const previous = slot.active
      slot.active = runner
      slot.pending = null
      await previous?.stop()
    })()
    this.switches.add(switched)
    void switched.finally(() => this.switches.delete(switched))
    return switched
  }

  private async run(projector: Projector, build: Build): Promise<ProjectionRunner> {
    const runner = new ProjectionRunner({
      log: this.options.log,
      store: this.options.store,
      projector,
      build,
      onError: (error) => this.options.onError?.(projector.name, error),
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
    const lag = (position: Position | null): number =>
      head === null ? 0 : Math.max(0, Number(head.commit - (position?.commit ?? 0n)))
    const out: Record<string, ProjectionStatus> = {}
    for (const projector of this.options.projectors) {
      const slot = this.slots.get(projector.name)
      const runner = slot?.active ?? null
      out[projector.name] = {
        version: projector.version,
        build: runner?.build.build ?? 0,
        status: runner?.status ?? 'not_running',
        position: runner?.position ? runner.position.commit.toString() : null,
        lag: lag(runner?.position ?? null),
        rebuilding: slot?.pending ? { build: slot.pending.build.build, position: slot.pending.position?.commit.toString() ?? null } : null,
      }
    }
    return out
  }

  async stop(): Promise<void> {
    this.stopped = true
    for (const slot of this.slots.values()) {
      await slot.pending?.stop()
      await slot.active?.stop()
    }
    await Promise.all([...this.switches])
  }
}

/**
 * First start: build 1 is active at once (there is nothing older to serve). A new code version:
 * keep serving the old build and build the new version beside it, up to the current head.
 */
export const planBuilds = (current: RegistryEntry | null, version: number, head: string): RegistryEntry => {
  if (!current) return { active: { version, build: 1 }, pending: null, lastBuild: 1 }
  if (current.active.version === version || current.pending?.version === version) return current
  return { active: current.active, pending: { version, build: current.lastBuild + 1, switchAt: head }, lastBuild: current.lastBuild + 1 }
}
