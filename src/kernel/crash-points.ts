/**
 * Named places between the steps of a command that spans two streams, where a test can make the
 * process die as `kill -9` would (`HEDGELOG_CRASH_POINTS`), to show that a restart finishes what
 * was left half done. Nothing is armed unless that setting names it.
 */
let armed: ReadonlySet<string> = new Set()

export const armCrashPoints = (names: readonly string[]): void => {
  armed = new Set(names)
}

export const crashPoint = (name: string): void => {
  if (armed.has(name)) process.kill(process.pid, 'SIGKILL')
}
