import type { CohortDefinition, PropertyFilter, PropertyGroup } from './definitions.js'
import type { MatchContext, Matcher } from './match-context.js'
import { compilePropertyFilter } from './property-match.js'

/** A cohort that is unknown or part of a cycle: the flag cannot be computed. */
const unresolvable: Matcher = (context) => {
  context.failed = true
  return false
}

const always: Matcher = () => true

const isGroup = (item: PropertyGroup | PropertyFilter): item is PropertyGroup =>
  Array.isArray((item as PropertyGroup).values)

const groupOf = (definition: CohortDefinition): PropertyGroup | null => {
  if ('is_static' in definition) return null
  if ('filters' in definition) return definition.filters.properties
  return definition
}

/** `in` (the default) tests membership, `not_in` its absence; `negation` inverts either. */
const membershipFilter = (membership: Matcher, filter: PropertyFilter): Matcher => {
  const inverted = (filter.operator === 'not_in') !== (filter.negation === true)
  return inverted ? (context) => !membership(context) : membership
}

/**
 * Compiles cohort membership tests once per definition set. Dynamic cohorts are their property
 * groups evaluated against the flag's properties; static cohorts read the request's membership.
 * Cohorts that are missing or reference each other in a cycle mark the flag as failed. The
 * property keys the compiled cohorts read are added to `reads`.
 */
export const cohortMatchers = (cohorts: Readonly<Record<string, CohortDefinition>> | undefined, reads: Set<string>): ((id: string) => Matcher) => {
  const compiled = new Map<string, Matcher>()
  const compiling = new Set<string>()

  const compileGroup = (group: PropertyGroup): Matcher => {
    const parts = group.values.map((item): Matcher => {
      if (isGroup(item)) return compileGroup(item)
      if (item.type === 'cohort') return membershipFilter(membership(String(item.value)), item)
      const match = compilePropertyFilter(item, reads)
      return item.negation === true ? (context) => !match(context) : match
    })
    if (parts.length === 0) return always
    return group.type === 'OR'
      ? (context: MatchContext) => parts.some((part) => part(context))
      : (context: MatchContext) => parts.every((part) => part(context))
  }

  const membership = (id: string): Matcher => {
    const done = compiled.get(id)
    if (done) return done
    if (compiling.has(id)) return unresolvable
    const definition = cohorts && Object.hasOwn(cohorts, id) ? cohorts[id] : undefined
    if (!definition) return unresolvable
    const group = groupOf(definition)
    compiling.add(id)
    const matcher: Matcher = group === null ? (context) => context.staticCohorts.has(id) : compileGroup(group)
    compiling.delete(id)
    compiled.set(id, matcher)
    return matcher
  }

  return membership
}

/** A flag condition's cohort filter: `{type: "cohort", key: "id", value: <cohort id>, operator: "in" | "not_in"}`. */
export const compileCohortFilter = (filter: PropertyFilter, membership: (id: string) => Matcher): Matcher =>
  membershipFilter(membership(String(filter.value)), filter)
