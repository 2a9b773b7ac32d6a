/**
 * The read and decide figures of this build against another build, in one run:
 * `node dist/bench/compare-builds.js /path/to/other/dist/src/main.js`. Each round runs
 * `BENCH_ONLY=reads,decide` of `npm run bench` once on each build, the first of the pair
 * alternating, the servers under test always started by this build's harness (so the bare
 * route, the load generator and the pinning are the same); `BENCH_ROUNDS` (default 3) rounds.
 * Prints each figure's values and medians per build and the ratio of this build's median to the
 * other's; exits non-zero when a figure of this build falls below the other's.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Figure } from './figures.js'
import { percentile } from './setup.js'

const RUN = fileURLToPath(new URL('./run.js', import.meta.url))
const THIS = fileURLToPath(new URL('../src/main.js', import.meta.url))
const other = process.argv[2]
if (other === undefined || !existsSync(other)) throw new Error('name the other build\'s dist/src/main.js: node dist/bench/compare-builds.js OTHER/dist/src/main.js')
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3)

/** One `npm run bench` of reads and decide on the build whose CLI is `main`: its figures, from the JSON line it ends with. */
const figuresOf = (main: string): Promise<Figure[]> => new Promise((resolve, reject) => {
  const child = spawn(process.execPath, [RUN], { env: { ...process.env, BENCH_ONLY: 'reads,decide', BENCH_MAIN: main }, stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.once('exit', () => {
    const last = output.trim().split('\n').at(-1) ?? ''
    try {
      resolve((JSON.parse(last) as { figures: Figure[] }).figures)
    } catch {
      reject(new Error(`the bench on ${main} printed no figures: ${output.slice(-2000)}`))
    }
  })
})

const builds = { this: THIS, other }
/** Figures with a target, by name; `higherIsBetter` from the target's direction. */
const values = new Map<string, { this: number[]; other: number[]; unit: string; higherIsBetter: boolean }>()
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? (['this', 'other'] as const) : (['other', 'this'] as const)
  for (const build of order) {
    for (const figure of await figuresOf(builds[build])) {
      // The generator's floor and other figures without a target describe the run, not a build.
      if (figure.target === undefined) continue
      const entry = values.get(figure.name) ?? { this: [], other: [], unit: figure.unit, higherIsBetter: figure.target?.atMost === undefined }
      entry[build].push(figure.value)
      values.set(figure.name, entry)
      process.stdout.write(`round ${round + 1}, ${build} build: ${figure.name} ${figure.value.toFixed(1)} ${figure.unit}\n`)
    }
  }
}

const list = (numbers: number[]): string => numbers.map((n) => n.toFixed(1)).join(', ')
let fell = false
process.stdout.write(`\n| figure | this build (median; runs) | other build (median; runs) | this / other |\n|---|---|---|---|\n`)
for (const [name, entry] of values) {
  const mine = percentile(entry.this, 0.5)
  const theirs = percentile(entry.other, 0.5)
  if (entry.higherIsBetter ? mine < theirs : mine > theirs) fell = true
  process.stdout.write(`| ${name} | ${mine.toFixed(1)} ${entry.unit} (${list(entry.this)}) | ${theirs.toFixed(1)} ${entry.unit} (${list(entry.other)}) | ${(mine / theirs).toFixed(3)} |\n`)
}
process.exitCode = fell ? 1 : 0
