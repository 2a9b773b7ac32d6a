import type { QueryEvent } from '../../../src/insights/engine/data.js'
import { localText } from './naive-calendar.js'
import { matchesFilter, type NaiveFilter } from './naive-filters.js'

/**
 * Funnels by brute force, from PostHog's documented rules and the choices docs/insights.md
 * states: every chain of events is tried, so the longest one and each step's earliest time come
 * from search, not from the engine's matching.
 */
export interface NaiveFunnel {
  timezone: string
  dateFrom: string
  dateTo: string
  steps: { event: string; filter?: NaiveFilter }[]
  order: 'ordered' | 'strict' | 'unordered'
  windowMs: number
  exclusions: { event: string; from: number; to: number }[]
  /** A breakdown by the event property $browser. */
  breakdown?: { attribution: 'first_touch' | 'last_touch' | 'all_events' | 'step'; step: number; limit: number }
}
export interface NaiveStep { count: number; average: number | null; median: number | null }
export interface NaiveResult { value: string[] | null; steps: NaiveStep[] }

interface Ev { e: QueryEvent; pos: number; value: string[] }
interface Attempt { start: number; k: number; times: number[] }

const stepMatches = (q: NaiveFunnel, i: number, ev: Ev): boolean =>
  ev.e.event === q.steps[i]!.event && (q.steps[i]!.filter === undefined || matchesFilter(q.steps[i]!.filter!, ev.e))
const anyStep = (q: NaiveFunnel, ev: Ev): boolean => q.steps.some((_, i) => stepMatches(q, i, ev))
/** Step i repeats step i-1: the same event, and no filter step i-1 lacks. */
const repeats = (q: NaiveFunnel, i: number): boolean =>
  i > 0 && q.steps[i]!.event === q.steps[i - 1]!.event && (q.steps[i]!.filter === undefined || JSON.stringify(q.steps[i]!.filter) === JSON.stringify(q.steps[i - 1]!.filter))

/** Ordered: every chain of distinct events, each step at or after the previous (strictly after for a repeat), within the window. */
const ordered = (q: NaiveFunnel, evs: Ev[], s: number, canStep: (i: number, ev: Ev) => boolean): Attempt => {
  const t0 = evs[s]!.e.timestamp
  const earliest: number[] = [t0]
  let k = 1
  const walk = (chain: number[]) => {
    const i = chain.length
    k = Math.max(k, i)
    earliest[i - 1] = Math.min(earliest[i - 1] ?? Infinity, evs[chain[i - 1]!]!.e.timestamp)
    if (i === q.steps.length) return
    const prev = evs[chain[i - 1]!]!.e.timestamp
    evs.forEach((ev, j) => {
      const t = ev.e.timestamp
      if (chain.includes(j) || !canStep(i, ev) || t > t0 + q.windowMs || t < prev || (repeats(q, i) && t === prev)) return
      walk([...chain, j])
    })
  }
  walk([s])
  return { start: s, k, times: earliest.slice(0, k) }
}

/** Strict: the chain is the actor's next events, one by one. */
const strict = (q: NaiveFunnel, evs: Ev[], s: number, canStep: (i: number, ev: Ev) => boolean): Attempt => {
  const t0 = evs[s]!.e.timestamp
  const times = [t0]
  for (let i = 1; i < q.steps.length; i++) {
    const ev = evs[s + i]
    const prev = times[i - 1]!
    if (!ev || !canStep(i, ev) || ev.e.timestamp > t0 + q.windowMs || (repeats(q, i) && ev.e.timestamp === prev)) break
    times.push(ev.e.timestamp)
  }
  return { start: s, k: times.length, times }
}

const assignable = (q: NaiveFunnel, set: Ev[]): boolean => {
  const tryFrom = (i: number, used: Set<number>): boolean =>
    i === set.length || q.steps.some((_, step) => !used.has(step) && stepMatches(q, step, set[i]!) && tryFrom(i + 1, new Set([...used, step])))
  return tryFrom(0, new Set())
}

/** Unordered: the largest set of window events (with the start) that can stand for distinct steps; the earliest such set. */
const unordered = (q: NaiveFunnel, evs: Ev[], s: number): Attempt => {
  const t0 = evs[s]!.e.timestamp
  const others = evs.filter((ev, j) => j !== s && ev.e.timestamp >= t0 && ev.e.timestamp <= t0 + q.windowMs && anyStep(q, ev))
  let best: number[] = [t0]
  for (let mask = 0; mask < 1 << others.length; mask++) {
    const set = [evs[s]!, ...others.filter((_, i) => (mask & (1 << i)) !== 0)]
    if (set.length > q.steps.length || set.length < best.length || !assignable(q, set)) continue
    const times = set.map((ev) => ev.e.timestamp).sort((a, b) => a - b)
    const differ = times.findIndex((t, i) => t !== best[i])
    if (times.length > best.length || (differ >= 0 && times[differ]! < best[differ]!)) best = times
  }
  return { start: s, k: best.length, times: best }
}

const excluded = (q: NaiveFunnel, evs: Ev[], a: Attempt): boolean =>
  q.exclusions.some((x) => a.k > x.from && evs.some((ev) => {
    if (ev.e.event !== x.event) return false
    const t = ev.e.timestamp
    return t > a.times[x.from]! && (a.k > x.to ? t < a.times[x.to]! : t <= a.times[0]! + q.windowMs)
  }))

/** A subject's attempt that counts, or null when exclusions discard all of them. */
const bestOf = (q: NaiveFunnel, evs: Ev[], canStep: (i: number, ev: Ev) => boolean, canStart: (ev: Ev) => boolean): Attempt | null => {
  let best: Attempt | null = null
  evs.forEach((ev, s) => {
    if (!canStart(ev) || !(q.order === 'unordered' ? anyStep(q, ev) : canStep(0, ev))) return
    const a = q.order === 'ordered' ? ordered(q, evs, s, canStep) : q.order === 'strict' ? strict(q, evs, s, canStep) : unordered(q, evs, s)
    if (excluded(q, evs, a)) return
    if (best === null || a.k > best.k || (a.k === best.k && (a.times[a.k - 1]! < best.times[best.k - 1]! || (a.times[a.k - 1] === best.times[best.k - 1] && a.times[0]! > best.times[0]!)))) best = a
  })
  return best
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const tally = (q: NaiveFunnel, attempts: Attempt[]): { counts: number[]; samples: number[][] } => ({
  counts: q.steps.map((_, i) => attempts.filter((a) => a.k > i).length),
  samples: q.steps.map((_, i) => (i === 0 ? [] : attempts.filter((a) => a.k > i).map((a) => (a.times[i]! - a.times[i - 1]!) / 1000))),
})

const shape = (value: string[] | null, t: { counts: number[]; samples: number[][] }): NaiveResult => ({
  value,
  steps: t.counts.map((count, i) => ({
    count,
    average: i === 0 || t.samples[i]!.length === 0 ? null : t.samples[i]!.reduce((a, b) => a + b, 0) / t.samples[i]!.length,
    median: i === 0 || t.samples[i]!.length === 0 ? null : median(t.samples[i]!),
  })),
})

/** Per actor: its subjects (value and events) by the breakdown attribution. */
const subjectsOf = (q: NaiveFunnel, evs: Ev[]): { value: string[] | null; canStep: (i: number, ev: Ev) => boolean; canStart: (ev: Ev) => boolean; evs: Ev[] }[] => {
  const all = { canStep: (i: number, ev: Ev) => stepMatches(q, i, ev), canStart: () => true }
  const b = q.breakdown
  if (!b) return [{ value: null, evs, ...all }]
  const stepEvs = evs.filter((ev) => anyStep(q, ev))
  const distinct = (list: Ev[]) => [...new Set(list.map((ev) => ev.value[0]!))]
  if (b.attribution === 'first_touch' || b.attribution === 'last_touch') {
    const named = stepEvs.filter((ev) => ev.value[0] !== '')
    const touch = b.attribution === 'first_touch' ? named[0] : named[named.length - 1]
    return [{ value: touch ? touch.value : [''], evs, ...all }]
  }
  if (b.attribution === 'all_events') return distinct(evs).map((v) => ({ value: [v], evs: evs.filter((ev) => ev.value[0] === v), ...all }))
  const carriers = q.order === 'unordered' ? stepEvs : evs.filter((ev) => stepMatches(q, b.step, ev))
  const values = carriers.length === 0 ? [''] : distinct(carriers)
  return values.map((v) => q.order === 'unordered'
    ? { value: [v], evs, canStep: all.canStep, canStart: (ev: Ev) => ev.value[0] === v }
    : { value: [v], evs, canStep: (i: number, ev: Ev) => stepMatches(q, i, ev) && (i !== b.step || ev.value[0] === v), canStart: () => true })
}

const rank = (a: { value: string[]; t: { counts: number[] } }, b: { value: string[]; t: { counts: number[] } }): number => {
  for (let i = a.t.counts.length - 1; i >= 0; i--) if (a.t.counts[i] !== b.t.counts[i]) return b.t.counts[i]! - a.t.counts[i]!
  return JSON.stringify(a.value) < JSON.stringify(b.value) ? -1 : 1
}

export const naiveFunnel = (q: NaiveFunnel, events: QueryEvent[]): NaiveResult[] => {
  const inRange = events
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => { const day = localText(e.timestamp, q.timezone).slice(0, 10); return day >= q.dateFrom && day <= q.dateTo })
    .sort((a, b) => a.e.timestamp - b.e.timestamp || a.i - b.i)
  const byValue = new Map<string, { value: string[] | null; attempts: Attempt[] }>()
  for (const person of new Set(inRange.map(({ e }) => e.personId))) {
    const mine = inRange.filter(({ e }) => e.personId === person)
      .filter(({ e }) => q.order === 'strict' || q.steps.some((s) => s.event === e.event) || q.exclusions.some((x) => x.event === e.event))
      .map(({ e }, pos): Ev => ({ e, pos, value: [typeof e.properties['$browser'] === 'string' ? e.properties['$browser'] : ''] }))
    for (const subject of subjectsOf(q, mine)) {
      const best = bestOf(q, subject.evs, subject.canStep, subject.canStart)
      if (best === null) continue
      const key = JSON.stringify(subject.value)
      byValue.set(key, { value: subject.value, attempts: [...(byValue.get(key)?.attempts ?? []), best] })
    }
  }
  if (!q.breakdown) return [shape(null, tally(q, byValue.get('null')?.attempts ?? []))]
  const ranked = [...byValue.values()].map((g) => ({ value: g.value!, attempts: g.attempts, t: tally(q, g.attempts) })).sort(rank)
  const kept = ranked.slice(0, q.breakdown.limit)
  const rest = ranked.slice(q.breakdown.limit)
  if (rest.length > 0) {
    const attempts = rest.flatMap((r) => r.attempts)
    kept.push({ value: ['Other'], attempts, t: tally(q, attempts) })
  }
  return kept.sort(rank).map((g) => shape(g.value, g.t))
}
