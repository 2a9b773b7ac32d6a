/** Wakes whoever waits for a condition each time something that may change it happens. */
export class Signal {
  private readonly waiting = new Set<() => void>()

  /** Resolves true as soon as `holds()` is true (checked now and at each `notify`), false after `timeoutMs`. */
  wait(holds: () => boolean, timeoutMs: number): Promise<boolean> {
    if (holds()) return Promise.resolve(true)
    return new Promise((resolve) => {
      const check = (): void => {
        if (!holds()) return
        this.waiting.delete(check)
        clearTimeout(timer)
        resolve(true)
      }
      const timer = setTimeout(() => { this.waiting.delete(check); resolve(holds()) }, timeoutMs)
      this.waiting.add(check)
    })
  }

  notify(): void {
    for (const check of [...this.waiting]) check()
  }
}
