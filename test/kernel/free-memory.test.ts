import t from 'tap'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { glibcVersion } from '../../src/cli/allocator.js'
import { ADDON_PATH, canReturnFreeMemory, freeMemoryProblem, returnFreeMemory } from '../../src/kernel/free-memory.js'
import { nodeCommand } from '../support/cli.js'

const MiB = 1024 * 1024
const script = fileURLToPath(new URL('./support/fragmented-heap.js', import.meta.url))

t.test('the addon is built by the install and loads', async (t) => {
  t.ok(existsSync(ADDON_PATH), `${ADDON_PATH} exists`)
  t.equal(freeMemoryProblem(), null, 'no problem to report')
  t.equal(typeof returnFreeMemory(), 'boolean')
})

t.test('given freed memory between blocks in use, when free memory is given back, then the resident size falls by most of it', { skip: glibcVersion() === undefined ? 'only glibc can give such memory back' : false }, async (t) => {
  t.ok(canReturnFreeMemory(), 'glibc can')
  const env: NodeJS.ProcessEnv = { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' }
  const { before, after, released, kept } = JSON.parse(execFileSync(...nodeCommand(['--expose-gc', script]), { env }).toString()) as
    { before: number; after: number; released: boolean; kept: number }
  t.equal(kept, 200, 'one block in sixteen is still in use')
  t.ok(released, 'the allocator says it gave memory back')
  // 3,000 freed blocks of 64 KiB lie between the kept ones: about 187 MiB.
  t.ok(before - after > 120 * MiB, `resident size ${Math.round(before / MiB)} MiB → ${Math.round(after / MiB)} MiB`)
})
