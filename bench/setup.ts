import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MAIN, run } from './processes.js'

/** A data directory with `hedgelog init` run in it. */
export interface Install {
  readonly dir: string
  readonly token: string
  readonly key: string
  readonly projectId: number
  readonly environmentId: number
  remove(): void
}

export const install = async (main = MAIN): Promise<Install> => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgelog-bench-'))
  const init = JSON.parse(await run([main, 'init', '--json'], { HEDGELOG_DATA_DIR: dir })) as {
    project_api_key: string; personal_api_key: string; project_id: number; environment_id: number
  }
  return {
    dir, token: init.project_api_key, key: init.personal_api_key, projectId: init.project_id, environmentId: init.environment_id,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** JSON over HTTP with the install's personal key; any answer but 2xx throws. */
export const client = (address: string, installed: Install) => {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${address}${path}`, {
      method,
      headers: { authorization: `Bearer ${installed.key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`)
    return JSON.parse(text) as T
  }
  const base = `/api/environments/${installed.environmentId}`
  return {
    base,
    get: <T>(path: string) => call<T>('GET', path),
    post: <T>(path: string, body: unknown) => call<T>('POST', path, body),
    patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body),
    /** The exact bytes a GET answers, for a bare route to answer the same. */
    raw: async (path: string): Promise<string> => {
      const response = await fetch(`${address}${path}`, { headers: { authorization: `Bearer ${installed.key}` } })
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`)
      return response.text()
    },
  }
}

/** Resolves once `/_health` is ok with every projection at the head of the log. */
export const projected = async (address: string, timeoutMs = 600_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const response = await fetch(`${address}/_health`).catch(() => null)
    if (response?.status === 200) {
      const health = await response.json() as { projections: Record<string, { lag: number }> }
      if (Object.values(health.projections).every((p) => p.lag === 0)) return
    } else await response?.text()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the projections did not catch up')
}

/** Posts `events` to `/batch/` in batches of `size`, `parallel` requests at a time. */
export const ingest = async (address: string, token: string, events: readonly object[], size = 1000, parallel = 4): Promise<void> => {
  let next = 0
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < events.length) {
      const batch = events.slice(next, next + size)
      next += size
      const response = await fetch(`${address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch }) })
      if (response.status !== 200) throw new Error(`/batch/ answered ${response.status}: ${await response.text()}`)
    }
  }))
}

export const percentile = (values: readonly number[], q: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}
