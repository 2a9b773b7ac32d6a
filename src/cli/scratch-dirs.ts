import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { processAlive } from '../kernel/process-alive.js'

/**
 * Where replays that keep nothing (`rebuild` without `--into`, `verify`, `audit --at`) write
 * their throwaway read models: inside the data directory, beside what they rebuild, rather than
 * in the system's temporary directory, where a killed replay's hundreds of megabytes stayed.
 */
export const scratchRoot = (dataDir: string): string => join(dataDir, 'rebuild-tmp')

/** A live owner touches its directory this often, so that other hosts can tell it is in use. */
const HEARTBEAT_MS = 10_000
/** An owner on another host, whose process cannot be asked about, is taken as gone after this long without a touch. */
export const STALE_MS = 120_000

/** Each directory is named `<host>.<pid>.<random>` by the process that uses it. */
const OWNED = /^(.+)\.(\d+)\.[^.]+$/

const thisHost = (): string => hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host'

export interface Here {
  readonly host: string
  readonly alive: (pid: number) => boolean
  readonly now: number
}

/**
 * Whether a scratch directory is a leftover: its process on this host has ended, or, made on
 * another host (a data directory shared over the network), it has not been touched for
 * `STALE_MS`. Names this code did not make are never leftovers.
 */
export const isLeftover = (name: string, touchedMs: number, here: Here): boolean => {
  const owner = OWNED.exec(name)
  if (!owner) return false
  if (owner[1] === here.host) return !here.alive(Number(owner[2]))
  return here.now - touchedMs > STALE_MS
}

/**
 * Removes the scratch directories of replays that ended without removing them (killed, or the
 * machine stopped); a directory a running replay uses is kept. Answers the paths removed.
 */
export const removeScratchLeftovers = (root: string, here: Here = { host: thisHost(), alive: processAlive, now: Date.now() }): string[] => {
  let names: string[]
  try {
    names = readdirSync(root)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  const removed: string[] = []
  for (const name of names) {
    const path = join(root, name)
    let touched: number
    try {
      touched = statSync(path).mtimeMs
    } catch {
      continue // removed meanwhile by another process cleaning up
    }
    if (!isLeftover(name, touched, here)) continue
    rmSync(path, { recursive: true, force: true })
    removed.push(path)
  }
  return removed
}

export interface ScratchDir {
  readonly path: string
  /** Removes the directory and everything in it. */
  readonly release: () => void
}

/** A fresh scratch directory named for this process, touched while it is held. */
export const claimScratchDir = (root: string): ScratchDir => {
  mkdirSync(root, { recursive: true })
  const path = mkdtempSync(join(root, `${thisHost()}.${process.pid}.`))
  const heartbeat = setInterval(() => {
    const now = new Date()
    try {
      utimesSync(path, now, now)
    } catch {
      // Removed under us: the replay writing there will fail and say why.
    }
  }, HEARTBEAT_MS)
  heartbeat.unref()
  return {
    path,
    release: () => {
      clearInterval(heartbeat)
      rmSync(path, { recursive: true, force: true })
    },
  }
}
