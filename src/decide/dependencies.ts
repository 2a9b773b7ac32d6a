import type { FlagDefinition, PropertyFilter } from './definitions.js'
import type { Matcher } from './match-context.js'
import type { FlagValue } from './results.js'

/**
 * `flag_evaluates_to`: expected `true` matches `true` or any non-empty variant, expected `false`
 * matches only `false`, an expected string matches only that exact variant.
 */
export const dependencyMatches = (actual: FlagValue, expected: unknown): boolean => {
  if (expected === true) return actual === true || (typeof actual === 'string' && actual !== '')
  if (expected === false) return actual === false
  if (typeof expected === 'string') return actual === expected
  return false
}

/**
 * The flag a `{type: "flag"}` filter names: the server stores the depended-on flag's id (as a
 * string), local-evaluation payloads its key; the id is tried first.
 */
export const dependencyTarget = (filter: PropertyFilter, byId: ReadonlyMap<string, FlagDefinition>, byKey: ReadonlyMap<string, FlagDefinition>): FlagDefinition | undefined =>
  byId.get(String(filter.key)) ?? byKey.get(String(filter.key))

/** Reads the depended-on flag's value from this request; a flag not evaluated (inactive) is `false`. */
export const dependencyMatcher = (targetKey: string, filter: PropertyFilter): Matcher => {
  const expected = filter.value
  return (context) => dependencyMatches(context.results.get(targetKey) ?? false, expected)
}

export interface DependencyNode {
  readonly key: string
  /** Keys of the active flags this flag's conditions read. */
  readonly dependsOn: readonly string[]
  /** True when a depended-on flag does not exist (or is deleted). */
  readonly missingDependency: boolean
}

/**
 * Orders flags so every flag comes after the flags it depends on, and names the flags that cannot
 * be computed: those in a dependency cycle, those with a missing dependency, and every flag that
 * depends on one of them.
 */
export const orderByDependencies = (nodes: readonly DependencyNode[]): { order: string[]; broken: Set<string> } => {
  const byKey = new Map(nodes.map((node) => [node.key, node]))
  const broken = new Set(nodes.filter((node) => node.missingDependency).map((node) => node.key))
  const order: string[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const stack: string[] = []

  const visit = (key: string): void => {
    const node = byKey.get(key)
    if (!node || state.get(key) === 'done') return
    if (state.get(key) === 'visiting') {
      for (const member of stack.slice(stack.indexOf(key))) broken.add(member)
      return
    }
    state.set(key, 'visiting')
    stack.push(key)
    for (const dependency of node.dependsOn) visit(dependency)
    stack.pop()
    state.set(key, 'done')
    order.push(key)
  }
  for (const node of nodes) visit(node.key)

  // Dependencies precede dependants in `order`, so one pass spreads breakage downstream.
  for (const key of order) {
    if (byKey.get(key)!.dependsOn.some((dependency) => broken.has(dependency))) broken.add(key)
  }
  return { order, broken }
}
