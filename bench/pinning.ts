import { execFileSync } from 'node:child_process'

/**
 * CPU pinning with `taskset`: servers under test on core 0, this process (the load generator)
 * on core 1. Children inherit this process's affinity, so every child is started with an explicit
 * core list. Without `taskset` everything runs unpinned and the bench says so.
 */
const works = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

export const pinned = works

/** Moves every thread of this process to core 1; a notice to print when that is not possible. */
export const pinSelfToLoadCore = (): string | null => {
  if (!works) return 'taskset is not available here: servers and load generator run unpinned, so ratios are less reliable'
  execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' })
  return null
}

/** `command` run on `cores`: '0' for servers, '0,1' for unpinned work. */
export const runOn = (cores: '0' | '0,1', command: [string, ...string[]]): [string, ...string[]] =>
  works ? ['taskset', '-c', cores, ...command] : command
