import type { OrderType } from './funnel-steps.js'

/** One event of a funnel subject, reduced to what the matching needs. */
export interface FunnelEvent {
  /** Epoch milliseconds. */
  readonly t: number
  /** Bit i set: the event counts as step i. */
  readonly steps: number
  /** Bit e set: the event is an event of exclusion e. */
  readonly exclusions: number
}

/** What an attempt is matched against. */
export interface FunnelRules {
  readonly order: OrderType
  readonly stepCount: number
  readonly windowMs: number
  /** Per step: it needs an event strictly later than the previous step's (PostHog's repeated-step rule). */
  readonly strictlyAfterPrevious: readonly boolean[]
  readonly exclusions: readonly { readonly from: number; readonly to: number }[]
}

/**
 * One way through the funnel: it starts at an event of the first step (any step, unordered)
 * and holds the times of the steps it reached, in order.
 */
export interface Attempt {
  readonly entry: number
  readonly times: readonly number[]
}

const has = (mask: number, bit: number): boolean => (mask & (1 << bit)) !== 0

/**
 * Finds an augmenting path for `left` in a bipartite matching (Kuhn's algorithm): `edges(left)`
 * lists the right nodes it may take, `owner` maps each right node to its left node or -1.
 */
const augment = (left: number, edges: (left: number) => readonly number[], owner: number[], seen: Set<number>): boolean => {
  for (const right of edges(left)) {
    if (seen.has(right)) continue
    seen.add(right)
    if (owner[right] === -1 || augment(owner[right]!, edges, owner, seen)) {
      owner[right] = left
      return true
    }
  }
  return false
}

/**
 * Ordered: the steps after the first are taken instant by instant. At each instant after the
 * start (the start's own instant included), as many of the next steps as can be given distinct
 * events of that instant are taken; a step that repeats the previous one must wait for a later
 * instant. This reaches the most steps, each at its earliest time.
 */
const orderedChain = (events: readonly FunnelEvent[], rules: FunnelRules, start: number): number[] => {
  const t0 = events[start]!.t
  const end = t0 + rules.windowMs
  const chain = [start]
  let first = start
  while (first > 0 && events[first - 1]!.t === t0) first--
  for (let i = first; i < events.length && events[i]!.t <= end && chain.length < rules.stepCount;) {
    const t = events[i]!.t
    const group: number[] = []
    for (; i < events.length && events[i]!.t === t; i++) if (i !== start) group.push(i)
    if (group.length <= 1) {
      // One event at this instant can take the next step and no more: what the matching below finds, without its work.
      const step = chain.length
      const event = group[0]
      const samePlace = t === events[chain[chain.length - 1]!]!.t
      if (event !== undefined && has(events[event]!.steps, step) && !(rules.strictlyAfterPrevious[step] && samePlace)) chain.push(event)
      continue
    }
    // owner[g]: the step the group's g-th event is given, or -1.
    const owner = new Array<number>(group.length).fill(-1)
    const edges = (step: number) => group.flatMap((event, g) => (has(events[event]!.steps, step) ? [g] : []))
    const taken: number[] = []
    for (let step = chain.length; step < rules.stepCount; step++) {
      const samePlace = taken.length > 0 || t === events[chain[chain.length - 1]!]!.t
      if (rules.strictlyAfterPrevious[step] && samePlace) break
      if (!augment(step, edges, owner, new Set())) break
      taken.push(step)
    }
    for (const step of taken) chain.push(group[owner.indexOf(step)]!)
  }
  return chain
}

/** Strict: each next step is the actor's very next event. */
const strictChain = (events: readonly FunnelEvent[], rules: FunnelRules, start: number): number[] => {
  const chain = [start]
  const end = events[start]!.t + rules.windowMs
  for (let step = 1; step < rules.stepCount; step++) {
    const previous = events[chain[step - 1]!]!
    const next = events[chain[step - 1]! + 1]
    if (!next || !has(next.steps, step) || next.t > end) break
    if (rules.strictlyAfterPrevious[step] && next.t === previous.t) break
    chain.push(chain[step - 1]! + 1)
  }
  return chain
}

/**
 * Unordered: the events from the start to the end of its window are taken in order, each kept
 * when the kept ones can still stand for different steps (a greedy matching, which finds the
 * most steps and, among such sets, the earliest events).
 */
const unorderedChain = (events: readonly FunnelEvent[], rules: FunnelRules, start: number): number[] => {
  const t0 = events[start]!.t
  const end = t0 + rules.windowMs
  // owner[step]: the event standing for the step, or -1.
  const owner: number[] = new Array<number>(rules.stepCount).fill(-1)
  const edges = (event: number) => Array.from({ length: rules.stepCount }, (_, step) => step).filter((step) => has(events[event]!.steps, step))
  augment(start, edges, owner, new Set())
  let first = start
  while (first > 0 && events[first - 1]!.t === t0) first--
  for (let i = first; i < events.length && events[i]!.t <= end; i++) {
    if (i === start || events[i]!.steps === 0) continue
    if (owner.every((o) => o !== -1)) break
    augment(i, edges, owner, new Set())
  }
  return owner.filter((event) => event !== -1).sort((a, b) => events[a]!.t - events[b]!.t || a - b)
}

/** Whether an exclusion event falls between its two steps (or, the later one not reached, before the window ends). */
const excluded = (events: readonly FunnelEvent[], rules: FunnelRules, times: readonly number[]): boolean =>
  rules.exclusions.some((exclusion, e) => {
    if (times.length <= exclusion.from) return false
    const low = times[exclusion.from]!
    const reached = times.length > exclusion.to
    const high = reached ? times[exclusion.to]! : times[0]! + rules.windowMs
    return events.some((event) => has(event.exclusions, e) && event.t > low && (event.t < high || (!reached && event.t === high)))
  })

/** Every attempt of one subject that no exclusion discards, one per event that can start the funnel. */
export const attemptsOf = (events: readonly FunnelEvent[], rules: FunnelRules, canStart: (event: FunnelEvent) => boolean = () => true): Attempt[] => {
  const out: Attempt[] = []
  events.forEach((event, start) => {
    const starts = rules.order === 'unordered' ? event.steps !== 0 : has(event.steps, 0)
    if (!starts || !canStart(event)) return
    const chain = rules.order === 'ordered' ? orderedChain(events, rules, start)
      : rules.order === 'strict' ? strictChain(events, rules, start) : unorderedChain(events, rules, start)
    const times = chain.map((index) => events[index]!.t)
    if (!excluded(events, rules, times)) out.push({ entry: event.t, times })
  })
  return out
}

/**
 * The attempt that stands for a subject: the one reaching the most steps; among those, the one
 * reaching its last step first; then the one that started last (the shortest way there).
 */
export const bestAttempt = (attempts: readonly Attempt[]): Attempt | null => {
  let best: Attempt | null = null
  for (const attempt of attempts) {
    if (best === null) { best = attempt; continue }
    const k = attempt.times.length
    const bk = best.times.length
    if (k !== bk) { if (k > bk) best = attempt; continue }
    const done = attempt.times[k - 1]!
    const bestDone = best.times[bk - 1]!
    if (done < bestDone || (done === bestDone && attempt.entry > best.entry)) best = attempt
  }
  return best
}
