import type { Timers } from '../../src/eventlog/esdb-head-watcher.js'

/** Timers driven by the test: `advance` runs what falls due, letting promises settle between. */
export class ManualTimers implements Timers {
  now = 0
  private next = 0
  private readonly due = new Map<number, { at: number; run: () => void }>()

  set(run: () => void, ms: number): unknown {
    const id = this.next++
    this.due.set(id, { at: this.now + ms, run })
    return id
  }

  clear(handle: unknown): void {
    this.due.delete(handle as number)
  }

  async advance(ms: number): Promise<void> {
    const until = this.now + ms
    for (;;) {
      await settle()
      let first: [number, { at: number; run: () => void }] | undefined
      for (const entry of this.due) if (entry[1].at <= until && (!first || entry[1].at < first[1].at)) first = entry
      if (!first) break
      this.due.delete(first[0])
      this.now = first[1].at
      first[1].run()
    }
    this.now = until
    await settle()
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}
