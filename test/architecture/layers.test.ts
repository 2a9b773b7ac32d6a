import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { nodeCommand } from '../support/cli.js'

/** The repository: this file runs as dist/test/architecture/layers.test.js. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const CONFIG = join(ROOT, '.dependency-cruiser.cjs')
const CRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs')

interface Violation { readonly rule: { readonly name: string }; readonly from: string; readonly to: string }

/** Runs the repository's layer rules on a tree of files written to a temporary folder. */
const cruise = (files: Record<string, string>): { status: number | null; violations: Violation[] } => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgelog-layers-'))
  try {
    const tree: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src', 'projections'] }),
      ...files,
    }
    for (const [path, text] of Object.entries(tree)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), text)
    }
    // The `err` report is the one `npm run lint:layers` prints, and the one that sets the exit code.
    const run = spawnSync(...nodeCommand([CRUISE, 'src', 'projections', '--config', CONFIG, '--output-type', 'err']), { cwd: dir, encoding: 'utf8' })
    if (run.error) throw run.error
    const violations = [...run.stdout.matchAll(/^\s*error (\S+): (\S+) → *(\S*)/gmu)]
      .map(([, rule, from, to]) => ({ rule: { name: rule! }, from: from!, to: to! }))
    if (run.status !== 0 && violations.length === 0) throw new Error(`dependency-cruiser failed: ${run.stdout}${run.stderr}`)
    return { status: run.status, violations }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A tree that keeps every layer: each file imports only below itself. */
const LAWFUL: Record<string, string> = {
  'src/kernel/ids.ts': 'export const id = 1\n',
  'src/kernel/handle.ts': "import type { Log } from '../eventlog/port.js'\nimport { LogError } from '../eventlog/errors.js'\nexport const handle = (log: Log): unknown => [log, LogError]\n",
  'src/eventlog/port.ts': "import { id } from '../kernel/ids.js'\nexport interface Log { id: typeof id }\n",
  'src/eventlog/errors.ts': "import type { Log } from './port.js'\nexport class LogError extends Error { log?: Log }\n",
  'src/eventlog/sqlite.ts': "import type { Log } from './port.js'\nexport const sqlite = (log: Log): Log => log\n",
  'src/readstore/documents.ts': "import type { Log } from '../eventlog/port.js'\nexport interface Documents { log: Log }\n",
  'src/http/errors.ts': "import { handle } from '../kernel/handle.js'\nexport const errors = handle\n",
  'src/auth/authenticate.ts': "import { errors } from '../http/errors.js'\nexport const authenticate = errors\n",
  'src/dashboards/routes.ts': "import { authenticate } from '../auth/authenticate.js'\nimport type { Documents } from '../readstore/documents.js'\nexport const routes = (d: Documents): unknown => [authenticate, d]\n",
  'src/flags/routes.ts': "import { routes } from '../dashboards/routes.js'\nexport const flags = routes\n",
  'projections/dashboards.ts': "import { routes } from '../src/dashboards/routes.js'\nexport const projector = routes\n",
  'src/cli/rebuild.ts': "import { projector } from '../../projections/dashboards.js'\nexport const rebuild = projector\n",
  'src/app.ts': "import { flags } from './flags/routes.js'\nimport { projector } from '../projections/dashboards.js'\nexport const app = [flags, projector]\n",
}

const rulesBroken = (violations: readonly Violation[]): string[] => [...new Set(violations.map((v) => v.rule.name))].sort()

t.test('a tree that keeps the layers passes', async (t) => {
  const { status, violations } = cruise(LAWFUL)
  t.same(violations, [])
  t.equal(status, 0)
})

const WRONG: ReadonlyArray<readonly [string, string, string, string]> = [
  ['the kernel imports a feature', 'src/kernel/ids.ts', "import '../dashboards/routes.js'\nexport const id = 1\n", 'kernel-imports-only-kernel'],
  ['the kernel imports an event log adapter', 'src/kernel/ids.ts', "import '../eventlog/sqlite.js'\nexport const id = 1\n", 'kernel-imports-only-kernel'],
  ['the event log port imports its adapter', 'src/eventlog/port.ts', "import '../eventlog/sqlite.js'\nexport interface Log { id: number }\n", 'log-port-imports-only-kernel'],
  ['the read store names a feature type', 'src/readstore/documents.ts', "import type { routes } from '../dashboards/routes.js'\nexport interface Documents { r: typeof routes }\n", 'ports-not-above'],
  ['the read store imports http', 'src/readstore/documents.ts', "import { errors } from '../http/errors.js'\nexport interface Documents { e: typeof errors }\n", 'ports-not-above'],
  ['auth imports a feature', 'src/auth/authenticate.ts', "import { flags } from '../flags/routes.js'\nexport const authenticate = flags\n", 'edge-not-above'],
  ['http imports the composition root', 'src/http/errors.ts', "import type { app } from '../app.js'\nexport const errors: typeof app = []\n", 'edge-not-above'],
  ['a feature imports the CLI', 'src/flags/routes.ts', "import { rebuild } from '../cli/rebuild.js'\nexport const flags = rebuild\n", 'features-not-root'],
  ['a feature imports the composition root', 'src/flags/routes.ts', "import type { app } from '../app.js'\nexport const flags: typeof app = []\n", 'features-not-root'],
]

for (const [title, path, text, rule] of WRONG) {
  t.test(`${title}: ${rule}`, async (t) => {
    const { status, violations } = cruise({ ...LAWFUL, [path]: text })
    t.ok(rulesBroken(violations).includes(rule), `${rule} among ${rulesBroken(violations).join(', ')}`)
    t.ok(violations.some((v) => v.from === path), 'the violation names the importing file')
    t.not(status, 0, 'the run fails')
  })
}

t.test('a feature that imports projections/ breaks both rules that forbid it', async (t) => {
  const { status, violations } = cruise({ ...LAWFUL, 'src/flags/routes.ts': "import { projector } from '../../projections/dashboards.js'\nexport const flags = projector\n" })
  t.same(rulesBroken(violations).filter((r) => r !== 'no-circular'), ['features-not-root', 'projections-only-from-root'])
  t.not(status, 0)
})

t.test('an import circle inside one layer is refused, type-only imports included', async (t) => {
  const { status, violations } = cruise({
    ...LAWFUL,
    'src/dashboards/routes.ts': "import type { flags } from '../flags/routes.js'\nexport const routes = (f: typeof flags): unknown => f\n",
  })
  t.same(rulesBroken(violations), ['no-circular'])
  t.not(status, 0)
})

t.test('the repository keeps its layers', async (t) => {
  const run = spawnSync(...nodeCommand([CRUISE, 'src', 'projections', '--config', CONFIG, '--output-type', 'err']), { cwd: ROOT, encoding: 'utf8' })
  t.equal(run.status, 0, run.stdout + run.stderr)
})
