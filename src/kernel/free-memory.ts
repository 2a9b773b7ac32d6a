import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

interface FreeMemoryAddon {
  /** Whether the allocator can give memory back on request (glibc). */
  readonly supported: boolean
  /** Releases every whole free page the allocator holds; true when any was. */
  returnFreeMemory(): boolean
  /** Sets malloc's mmap threshold, as `MALLOC_MMAP_THRESHOLD_` does at start; true when glibc took it. */
  fixMmapThreshold(bytes: number): boolean
}

/** The addon `npm ci` builds from `native/free-memory.c` (node-gyp, through `binding.gyp`). */
export const ADDON_PATH = fileURLToPath(new URL('../../../build/Release/free_memory.node', import.meta.url))

const load = (): FreeMemoryAddon | Error => {
  try {
    return createRequire(import.meta.url)(ADDON_PATH) as FreeMemoryAddon
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error))
  }
}

const addon = load()

/**
 * Gives the memory the allocator holds free back to the system. glibc keeps freed blocks that
 * lie between blocks in use, in every thread's arena; after a burst of large requests and the
 * projection work they bring, that is tens of megabytes the process no longer uses. Called once
 * a burst is over (never on a hot path): it locks each arena in turn while it walks it.
 */
export const returnFreeMemory = (): boolean => (addon instanceof Error ? false : addon.returnFreeMemory())

/** Fixes malloc's mmap threshold from inside the process; false where the addon or glibc is missing. */
export const fixMmapThreshold = (bytes: number): boolean => (addon instanceof Error ? false : addon.fixMmapThreshold(bytes))

/** Why memory cannot be given back here, or null when it can. */
export const freeMemoryProblem = (): string | null =>
  addon instanceof Error
    ? `the free-memory addon did not load (${addon.message.split('\n')[0]}); run \`npm ci\` (or \`npm rebuild\`) to build it`
    : null

/** Whether this system's allocator can give memory back on request at all. */
export const canReturnFreeMemory = (): boolean => !(addon instanceof Error) && addon.supported
