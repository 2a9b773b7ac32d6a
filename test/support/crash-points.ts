import type { ChildProcess } from 'node:child_process'
import type { Test } from 'tap'
import { exited, runCli, startServer } from './cli.js'
import { tempDir } from './temp.js'

/**
 * A real service that kills itself (as `kill -9` would) between the two steps of a command
 * across streams, then a restart on the same files: the restarted service finishes the command
 * from the log, and `hedgelog verify` finds the read models equal to a replay.
 */
export const crashBetweenSteps = async (t: Test, crashPoint: string) => {
  const env = { HEDGELOG_DATA_DIR: tempDir(t), PORT: '0', HOST: '127.0.0.1' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout)
  const legacy = JSON.parse((await runCli(['keys', 'create', '--unscoped', '--json'], env)).stdout)
  const servers: { child: ChildProcess }[] = []
  t.teardown(async () => {
    for (const { child } of servers) {
      if (child.exitCode !== null || child.signalCode !== null) continue
      child.kill('SIGKILL')
      await exited(child)
    }
  })
  const start = async (points: string) => {
    const server = await startServer([], { ...env, HEDGELOG_CRASH_POINTS: points })
    servers.push(server)
    const call = async (method: string, path: string, body?: unknown, key = legacy.personal_api_key) => {
      const url = path.startsWith('/api/') ? path : `/api/environments/${init.environment_id}${path}`
      const response = await fetch(`${server.address}${url}`, {
        method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
      const text = await response.text()
      return { status: response.status, body: text ? JSON.parse(text) : undefined }
    }
    return { server, call }
  }
  const first = await start(crashPoint)
  return { env, first, start }
}

/** Resolves once the child has died of a signal (its exit code stays null). */
export const killed = (child: ChildProcess): Promise<unknown> =>
  child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve))

/** Polls until `check` holds, for at most `ms`. */
export const eventually = async (check: () => Promise<boolean>, ms = 15_000): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return false
}
