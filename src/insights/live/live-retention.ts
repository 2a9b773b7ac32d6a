import type { QueryEnvironment, QueryEvent } from '../engine/data.js'
import { rowContext, type RowLookups } from '../properties/row-context.js'
import { RetentionActivities, retentionMark, type RetentionMark, type RetentionSubject } from '../retention/retention-cohorts.js'
import { planRetention, retentionRangeAt, type RetentionPlan, type RetentionRange } from '../retention/retention-plan.js'
import { countSubject, retentionResponse, type RetentionCounts, type RetentionResponse } from '../retention/run-retention.js'
import type { RetentionQuery } from '../schema/insight-queries.js'
import { alignLocal } from '../time/date-range.js'
import { openZone, type Zone } from '../time/zone.js'
import { firstNotBefore, mergeSorted } from './sorted.js'
import type { LiveQuery } from './live-query.js'
import { liveRetentionRefusal } from './live-support.js'

/** A mark kept live: the local start of its period is known from when it is added. */
type KeptMark = RetentionMark & { readonly start: number }

/** One person's marks, in order of time, and the subjects they made at the last answer. */
interface PersonState {
  marks: KeptMark[]
  subjects: readonly RetentionSubject[]
}

/** The first index of sorted marks whose time is at least `t`. */
const firstAtOrAfter = (marks: readonly KeptMark[], t: number): number => firstNotBefore(marks, (mark) => mark.timestamp < t)

/** Two lists of marks in order of time, as one (on equal times, the first list's first). */
const mergeMarks = (a: readonly KeptMark[], b: readonly KeptMark[]): KeptMark[] => mergeSorted(a, b, (fromB, fromA) => fromB.timestamp < fromA.timestamp)

/** A breakdown value's cohort sizes summed: 0 once no subject has the value (the engine would not show it). */
const sizeOf = (cells: readonly number[][]): number => cells.reduce((sum, row) => sum + row[0]!, 0)

/**
 * A RetentionQuery answered continuously. Each event the query can match (a target or returning
 * event passing its filters) is kept as a mark of its person: its time, the local start of its
 * period, whether it is a target or a return, and its breakdown value, all read when it is added.
 * Each person's subjects (the cohorts they make, per breakdown value) are counted in the answer's
 * cells; an added event or a merge only marks its persons to be counted again, and an answer
 * counts again those persons alone, taking away what they counted before and adding what they
 * count now, with the query engine's own rules (`RetentionActivities`) and shaping
 * (`retentionResponse`). When the cohort intervals change (a relative range at the turn of its
 * period, or an earlier first event for `date_from: "all"`), every person is counted again once.
 * `answer(now)` equals `runRetention` at `now` over every event added, each with its person as it
 * is after the merges told; every event is kept whole, so it is never null.
 */
export class LiveRetention implements LiveQuery<RetentionResponse> {
  private readonly plan: RetentionPlan
  private readonly zone: Zone
  private readonly lookups: RowLookups
  private readonly persons = new Map<string, PersonState>()
  private readonly dirty = new Set<string>()
  private earliest: number | null = null
  /** The cohort intervals the counts are for, null before the first answer. */
  private range: RetentionRange | null = null
  private counts: RetentionCounts = new Map()

  /** Throws `QueryRefused` for a query the engine refuses, and an error for one `liveRetentionRefusal` refuses. */
  constructor(private readonly query: RetentionQuery, private readonly environment: QueryEnvironment, now: number) {
    this.plan = planRetention(query, { environment, now })
    const refusal = liveRetentionRefusal(query, this.plan.needs, environment)
    if (refusal !== null) throw new Error(`this retention query cannot be answered live: ${refusal}`)
    this.zone = openZone(environment.timezone)
    this.lookups = { groupTypes: environment.groupTypes, groups: new Map(), sessions: null }
  }

  /** Keeps one event as a mark of its person (`personId` as the event is added), when the query can match it. */
  add(event: QueryEvent): void {
    if (this.earliest === null || event.timestamp < this.earliest) this.earliest = event.timestamp
    const { target, returning } = this.plan
    if (target.event !== null && returning.event !== null && event.event !== target.event && event.event !== returning.event) return
    const mark = retentionMark(this.plan, rowContext(event, this.lookups))
    if (mark === null) return
    // Written out rather than spread: a spread copy takes about twice the memory, and persons keep millions of marks.
    const { actor, value, timestamp, target: isTarget, returning: isReturning } = mark
    const start = alignLocal(this.zone.toLocal(timestamp), this.plan.period, this.environment.weekStartDay)
    const kept: KeptMark = { actor, value, timestamp, target: isTarget, returning: isReturning, start }
    let state = this.persons.get(mark.actor)
    if (state === undefined) this.persons.set(mark.actor, (state = { marks: [], subjects: [] }))
    const { marks } = state
    if (marks.length === 0 || marks[marks.length - 1]!.timestamp <= kept.timestamp) marks.push(kept)
    else marks.splice(firstAtOrAfter(marks, kept.timestamp + 1), 0, kept)
    this.dirty.add(mark.actor)
  }

  /** Person `from` was merged into person `into`: `from`'s marks are `into`'s now, and both are counted again. */
  merge(from: string, into: string): void {
    if (from === into) return
    const moving = this.persons.get(from)
    if (moving === undefined || moving.marks.length === 0) return
    const kept = this.persons.get(into)
    if (kept === undefined) this.persons.set(into, { marks: moving.marks, subjects: [] })
    else kept.marks = mergeMarks(kept.marks, moving.marks)
    moving.marks = []
    this.dirty.add(from)
    this.dirty.add(into)
  }

  /** The query's answer at `now`. */
  size(): number {
    let size = 0
    for (const person of this.persons.values()) size += 1 + person.marks.length
    return size
  }

  answer(now: number): RetentionResponse {
    const earliestEvent = this.query.dateRange?.date_from === 'all' ? this.earliest : null
    const range = retentionRangeAt(this.query, this.plan, { environment: this.environment, now }, earliestEvent)
    const intervals = range.starts.length
    const { lookahead } = this.plan
    let persons: Iterable<string> = this.dirty
    if (this.range === null || this.range.from !== range.from || this.range.to !== range.to) {
      this.range = range
      this.counts = new Map()
      for (const state of this.persons.values()) state.subjects = []
      persons = this.persons.keys()
    }
    const activities = new RetentionActivities(this.plan, range, this.environment.weekStartDay)
    const touched = new Set<string | null>()
    for (const person of [...persons]) {
      const state = this.persons.get(person)
      if (state === undefined) continue
      for (const subject of state.subjects) {
        countSubject(this.counts, subject, intervals, lookahead, -1)
        touched.add(subject.value)
      }
      if (state.marks.length === 0) {
        this.persons.delete(person)
        continue
      }
      state.subjects = this.subjectsOf(person, state.marks, range, activities)
      for (const subject of state.subjects) countSubject(this.counts, subject, intervals, lookahead)
    }
    this.dirty.clear()
    if (this.plan.breakdown !== null) {
      for (const value of touched) {
        const cells = this.counts.get(value)
        if (cells !== undefined && sizeOf(cells) === 0) this.counts.delete(value)
      }
    }
    return retentionResponse(this.plan, range, this.counts, this.environment.timezone)
  }

  /**
   * One person's subjects over a range, from the marks the engine's scan would read: up to the
   * range's end, and from its start unless first targets are sought (first time).
   */
  private subjectsOf(person: string, marks: readonly KeptMark[], range: RetentionRange, activities: RetentionActivities): RetentionSubject[] {
    const from = this.plan.firstTime ? 0 : firstAtOrAfter(marks, range.from)
    const to = firstAtOrAfter(marks, range.to)
    if (from >= to) return []
    activities.clear()
    for (let i = from; i < to; i++) activities.add(marks[i]!, person)
    return activities.subjects()
  }
}
