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

/** Indices of the events of each step, in list order (so in time order). */
const eventsByStep = (events: readonly FunnelEvent[], stepCount: number): number[][] => {
  const out: number[][] = Array.from({ length: stepCount }, () => [])
  events.forEach((event, index) => {
    for (let step = 0; step < stepCount; step++) if (has(event.steps, step)) out[step]!.push(index)
  })
  return out
}

/** The first event of `candidates` at or after `from` (strictly after with `strict`), not in `used`, up to `end`. */
const firstFrom = (events: readonly FunnelEvent[], candidates: readonly number[], from: number, strict: boolean, end: number, used: readonly number[]): number => {
  let low = 0
  let high = candidates.length
  while (low < high) {
    const mid = (low + high) >> 1
    const t = events[candidates[mid]!]!.t
    if (t > from || (!strict && t === from)) high = mid
    else low = mid + 1
  }
  for (let i = low; i < candidates.length; i++) {
    const index = candidates[i]!
    if (events[index]!.t > end) return -1
    if (!used.includes(index)) return index
  }
  return -1
}

/** Ordered: each next step takes the first event of that step that is not used yet, at or after the previous step, within the window. */
const orderedChain = (events: readonly FunnelEvent[], rules: FunnelRules, byStep: number[][], start: number): number[] => {
  const chain = [start]
  const end = events[start]!.t + rules.windowMs
  for (let step = 1; step < rules.stepCount; step++) {
    const previous = events[chain[step - 1]!]!.t
    const next = firstFrom(events, byStep[step]!, previous, rules.strictlyAfterPrevious[step]!, end, chain)
    if (next < 0) break
    chain.push(next)
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
  const owner: number[] = new Array<number>(rules.stepCount).fill(-1)
  const augment = (event: number, seen: boolean[]): boolean => {
    for (let step = 0; step < rules.stepCount; step++) {
      if (!has(events[event]!.steps, step) || seen[step]) continue
      seen[step] = true
      if (owner[step] === -1 || augment(owner[step]!, seen)) {
        owner[step] = event
        return true
      }
    }
    return false
  }
  augment(start, [])
  let first = start
  while (first > 0 && events[first - 1]!.t === t0) first--
  for (let i = first; i < events.length && events[i]!.t <= end; i++) {
    if (i === start || events[i]!.steps === 0) continue
    if (owner.every((o) => o !== -1)) break
    augment(i, [])
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
  const byStep = rules.order === 'ordered' ? eventsByStep(events, rules.stepCount) : []
  const out: Attempt[] = []
  events.forEach((event, start) => {
    const starts = rules.order === 'unordered' ? event.steps !== 0 : has(event.steps, 0)
    if (!starts || !canStart(event)) return
    const chain = rules.order === 'ordered' ? orderedChain(events, rules, byStep, start)
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
