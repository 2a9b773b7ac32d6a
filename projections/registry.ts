import type { JsonObject } from '../src/eventlog/port.js'
import { CheckpointConflict, type ReadStore } from '../src/readstore/port.js'
import type { Build } from '../src/readstore/names.js'

/** Which build of a projector queries read, and which one is being built beside it. */
export interface RegistryEntry {
  readonly active: Build
  /** A build catching up; it becomes active once it has passed `switchAt` (a position string). */
  readonly pending: (Build & { readonly switchAt: string }) | null
  readonly lastBuild: number
}

const COLLECTION = 'projection_registry'
const TTL_MS = 1000

/**
 * The registry lives in the read store. Its writes reuse the store's checkpoint compare-and-set
 * as a revision counter (`registry:<name>`), so two processes cannot switch builds over each other.
 */
export class ProjectionRegistry {
  private readonly cache = new Map<string, { entry: RegistryEntry | null; at: number }>()

  constructor(private readonly store: ReadStore) {}

  /** The entry, cached for a second so a query does not pay a registry read each time. */
  async cached(name: string): Promise<RegistryEntry | null> {
    const fresh = this.fresh(name)
    if (fresh !== undefined) return fresh
    const entry = await this.read(name)
    this.cache.set(name, { entry, at: Date.now() })
    return entry
  }

  fresh(name: string): RegistryEntry | null | undefined {
    const hit = this.cache.get(name)
    return hit && Date.now() - hit.at < TTL_MS ? hit.entry : undefined
  }

  async read(name: string): Promise<RegistryEntry | null> {
    const doc = await this.store.get(COLLECTION, name)
    return doc ? (doc['entry'] as RegistryEntry) : null
  }

  /** Applies `change` to the current entry and saves it, retrying when another process saved first. */
  async update(name: string, change: (current: RegistryEntry | null) => RegistryEntry): Promise<RegistryEntry> {
    for (let attempt = 0; ; attempt++) {
      const revision = await this.store.checkpoint(`registry:${name}`)
      const next = change(await this.read(name))
      const counter = (revision?.commit ?? 0n) + 1n
      try {
        await this.store.commit({
          checkpoint: `registry:${name}`,
          expected: revision,
          next: { commit: counter, prepare: counter },
          changes: [{ collection: COLLECTION, id: name, doc: { id: name, entry: next } as unknown as JsonObject }],
        })
        this.cache.set(name, { entry: next, at: Date.now() })
        return next
      } catch (error) {
        if (!(error instanceof CheckpointConflict) || attempt >= 5) throw error
      }
    }
  }
}
