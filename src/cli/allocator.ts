/**
 * glibc's malloc raises its mmap threshold (up to 32 MiB) each time a large block it mapped is
 * freed, and its trim threshold with it: after one large request, blocks of megabytes come from
 * the heap arenas, and the memory they took is kept by the process instead of returned. Fixing
 * the threshold at glibc's own default keeps large blocks mapped, so their memory goes back to
 * the system when they are freed. The variable is read when the process starts, so the launcher
 * sets it: `dist/src/main.js`'s `#!` line, which `npm start`, `npx hedgelog` and the image run.
 * A process started otherwise (`node dist/src/main.js serve`) sets the same threshold through the
 * free-memory addon's `mallopt` as it starts.
 */
export const ALLOCATOR_VARIABLE = 'MALLOC_MMAP_THRESHOLD_'
export const ALLOCATOR_VALUE = '131072'

/** glibc's version when this process runs on it, else undefined (musl, macOS, Windows). */
export const glibcVersion = (): string | undefined =>
  (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime

/**
 * What to warn an operator of when the service was started without the launcher's allocator
 * setting and could not make it itself (`fix`, through the free-memory addon); null when nothing.
 * `glibc` is asked only when the variable is missing.
 */
export const allocatorWarning = (env: NodeJS.ProcessEnv, glibc: () => string | undefined, fix: (bytes: number) => boolean): string | null =>
  env[ALLOCATOR_VARIABLE] !== undefined || glibc() === undefined || fix(Number(ALLOCATOR_VALUE))
    ? null
    : `${ALLOCATOR_VARIABLE} is not set: memory taken by large requests may stay with the process; start with \`hedgelog serve\` (or \`npm start\`), or set ${ALLOCATOR_VARIABLE}=${ALLOCATOR_VALUE}`

/**
 * V8's helper threads, which do the parallel and concurrent parts of every thread's garbage
 * collection, run at the normal priority whichever thread's heap they work on: a decoding or
 * projection thread's collection, meant to yield to requests, then competes with the HTTP
 * thread on equal terms. Node starts four; the launcher starts two, which on a 2-core machine
 * took the slowest health probe during a flood of four 20 MB batches from 16–66 ms (8 runs) to
 * 19–32 ms (8 runs).
 */
export const GC_HELPERS_FLAG = '--v8-pool-size=2'
