/**
 * The layers of src/ and projections/, lowest first, and the imports each may make.
 * `npm run lint:layers` (run by `npm test`) checks them; any violation fails the run.
 *
 *   1. kernel      src/kernel/, together with the event log's port (src/eventlog/port.ts) and its
 *                  errors (src/eventlog/errors.ts). The command handler is written against the
 *                  event log's interface, so that interface belongs to the kernel's layer; the two
 *                  files stay beside their adapters and may import only the kernel and each other.
 *   2. ports       src/eventlog/ and src/readstore/: ports and their adapters
 *   3. edge        src/http/ and src/auth/
 *   4. features    every other folder of src/ (dashboards/, flags/, accounts/, ingestion/, ...)
 *   5. root        the composition root (src/app.ts, service.ts, storage.ts, main.ts, config.ts),
 *                  the CLI (src/cli/) and projections/, which only the root, the CLI and the
 *                  tests import
 *
 * A layer imports only layers below it (and itself); no import circle anywhere.
 *
 * Type-only imports count like any other: a type that a lower layer names belongs in that
 * layer, or the layers are only held at run time and not in the code a reader follows.
 */

const KERNEL = '^src/kernel/'
const LOG_PORT = '^src/eventlog/(port|errors)[.]ts$'
const PORTS = '^src/(eventlog|readstore)/'
const EDGE = '^src/(http|auth)/'
const LOWER = '^src/(kernel|eventlog|readstore|http|auth)/'
const ROOT_FILES = '^src/(app|app-deps|modules|service|storage|main|config)[.]ts$'
const CLI = '^src/cli/'
const PROJECTIONS = '^projections/'
const FEATURE = '^src/(?!(kernel|eventlog|readstore|http|auth|cli)/)[^/]+/'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle, type-only imports included.',
      from: { path: '^(src|projections)/' },
      to: { circular: true },
    },
    {
      name: 'kernel-imports-only-kernel',
      severity: 'error',
      comment:
        'The kernel imports only itself and the event log port (src/eventlog/port.ts, errors.ts), ' +
        'which belongs to its layer.',
      from: { path: KERNEL },
      to: { path: '^(src|projections)/', pathNot: [KERNEL, LOG_PORT] },
    },
    {
      name: 'log-port-imports-only-kernel',
      severity: 'error',
      comment: 'The event log port and its errors are in the kernel layer: they import only it.',
      from: { path: LOG_PORT },
      to: { path: '^(src|projections)/', pathNot: [KERNEL, LOG_PORT] },
    },
    {
      name: 'ports-not-above',
      severity: 'error',
      comment: 'eventlog/ and readstore/ import only the kernel and each other.',
      from: { path: PORTS },
      to: { path: '^(src|projections)/', pathNot: [KERNEL, PORTS] },
    },
    {
      name: 'edge-not-above',
      severity: 'error',
      comment: 'http/ and auth/ import only the kernel, the ports and each other.',
      from: { path: EDGE },
      to: { path: '^(src|projections)/', pathNot: [LOWER] },
    },
    {
      name: 'features-not-root',
      severity: 'error',
      comment:
        'A feature folder does not import the composition root, the CLI or projections/.',
      from: { path: FEATURE },
      to: { path: [ROOT_FILES, CLI, PROJECTIONS] },
    },
    {
      name: 'projections-only-from-root',
      severity: 'error',
      comment: 'Only the composition root and the CLI import projections/ (tests may too).',
      from: { path: '^src/', pathNot: [ROOT_FILES, CLI] },
      to: { path: PROJECTIONS },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every relative import resolves, so no rule is skipped for a path it cannot see.',
      from: { path: '^(src|projections)/' },
      to: { couldNotResolve: true, path: '^[.]' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
}
