import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { allProjectors, auditedResources, MODULES } from '../../src/modules.js'
import { EVENTS_CAPTURED } from '../../src/ingestion/captured-event.js'
import { CHANGE_COMMITTED } from '../../src/kernel/change-parts.js'
import { LOG_SEALED } from '../../src/audit/seal-chain.js'
import { IMPORT_LEASE_RELEASED, IMPORT_LEASE_TAKEN } from '../../src/migration/import-lease.js'

/** The repository: this file runs as dist/test/architecture/modules.test.js. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

const duplicates = (values: readonly string[]): string[] => values.filter((value, i) => values.indexOf(value) !== i)

t.test('every feature folder with a module.ts is in the module list, under its folder name', async (t) => {
  const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'src', entry.name, 'module.ts')))
    .map((entry) => entry.name)
    .sort()
  t.same(MODULES.map((module) => module.name).sort(), folders)
  t.same(duplicates(MODULES.map((module) => module.name)), [], 'no module twice')
})

t.test('the registries built from the modules hold each projector, collection and audited kind once', async (t) => {
  t.same(duplicates(allProjectors.map((projector) => projector.name)), [], 'projector names')
  t.same(duplicates(allProjectors.flatMap((projector) => projector.collections)), [], 'each collection has one owner')
  t.same(duplicates(auditedResources.map((resource) => resource.kind)), [], 'audited kinds')
  t.same(duplicates(auditedResources.map((resource) => resource.stream(1))), [], 'audited streams')
  t.equal(auditedResources.filter((resource) => resource.isEnvironment).length, 1, 'one resource is the environment itself')
})

t.test('projectors of captured events carry a thread weight, so they never share the management thread', async (t) => {
  const captured = allProjectors.filter((projector) => projector.handles.includes(EVENTS_CAPTURED))
  t.ok(captured.length >= 4, 'persons, groups, sessions and events at least')
  for (const projector of allProjectors) {
    t.equal(projector.threadWeight !== undefined, captured.includes(projector), `${projector.name}: a weight exactly when it reads captured events`)
  }
})

t.test('every module that has routes gives at least one, and only for known roles', async (t) => {
  for (const module of MODULES) {
    if (!module.routes) continue
    const routes = await module.routes()
    const roles = Object.keys(routes)
    t.ok(roles.length > 0 && roles.every((role) => ['api', 'environment', 'ingest'].includes(role)), `${module.name}: ${roles.join(', ')}`)
    t.ok(Object.values(routes).every((plugins: readonly unknown[]) => plugins.length > 0 && plugins.every((plugin) => typeof plugin === 'function')), `${module.name}: plugins`)
  }
})

/** Event types no feature owns: the kernel's (sequences, idempotent ids, large changes) and the tools' (seals, import leases). */
const KERNEL_AND_TOOL_TYPES = [CHANGE_COMMITTED, 'SequenceIdAllocated', 'CommandIdAllocated', LOG_SEALED, IMPORT_LEASE_TAKEN, IMPORT_LEASE_RELEASED]

t.test('every event type is declared once, read only if declared, and described in the event catalogue', async (t) => {
  const declared = MODULES.flatMap((module) => module.eventTypes ?? [])
  t.same(duplicates(declared), [], 'no type declared by two modules')
  const known = new Set([...declared, ...KERNEL_AND_TOOL_TYPES])
  for (const projector of allProjectors) {
    t.same(projector.handles.filter((type) => !known.has(type)), [], `${projector.name} reads only declared types`)
  }
  const catalogue = readFileSync(join(ROOT, 'docs', 'events.md'), 'utf8')
  t.same([...known].filter((type) => !catalogue.includes(`\`${type} {`) && !catalogue.includes(`\`${type}\``)), [], 'each in docs/events.md')
})
