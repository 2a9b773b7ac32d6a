import type { EventLog, JsonObject } from '../eventlog/port.js'
import type { Change } from '../activity/activity-log.js'
import { readInstallation } from '../accounts/commands.js'
import { stateAsOf } from '../eventlog/as-of.js'
import { auditedResources } from '../modules.js'
import { parseCutoff, resolveCutoff, type Cutoff } from '../eventlog/cutoff.js'
import { auditSubject, personHistory, streamHistory, UnknownSubject, type AuditSubject, type HistoryLine } from '../audit/history.js'
import {
  distinctIdKey, distinctIdPageKey, personKey, type DistinctIdPage, type DistinctIdRecord, type PersonRecord,
} from '../persons/records.js'
import { physicalCollection } from '../readstore/names.js'
import { PERSONS, PERSON_DISTINCT_IDS, PERSON_DISTINCT_ID_PAGES, persons } from '../persons/projection.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { replay } from '../../projections/replay.js'
import { scratchStore } from './rebuild.js'
import { resultsAsOf } from '../insights/as-of/results-as-of.js'
import type { Insight } from '../insights/state.js'

export interface AuditArgs {
  readonly words: readonly string[]
  readonly at: string | undefined
  readonly environment: string | undefined
  /** Where a replay for `--at` keeps its throwaway read models (see scratch-dirs.ts). */
  readonly scratchRoot: string
  /** The partitions persons are built in, so that a replayed person has the integer id the live one has. Default 1. */
  readonly partitions?: number
}

export interface AuditOutput {
  readonly json: unknown
  readonly text: string
}

const show = (value: unknown): string => (value === undefined ? 'null' : JSON.stringify(value))

const changeText = (change: Change): string =>
  change.action === 'created' ? 'created' : `${change.field}: ${show(change.before)} -> ${show(change.after)}`

const lineText = (line: HistoryLine): string => {
  const head = `${line.position}\t${line.recorded}\t${line.actor ?? '-'}\t`
  if (line.activity !== undefined) return `${head}${line.activity}\t${(line.changes ?? []).map(changeText).join('; ')}`
  return `${head}${line.type}\t${JSON.stringify(line.data)}`
}

const cutoffOf = (at: string | undefined): Cutoff | null => {
  if (at === undefined) return null
  const cutoff = parseCutoff(at)
  if (!cutoff) throw new UnknownSubject(`--at takes a log position (e.g. 1234) or an ISO 8601 time, not ${JSON.stringify(at)}`)
  return cutoff
}

const environmentOf = async (log: EventLog, given: string | undefined): Promise<number> => {
  if (given !== undefined) {
    if (!/^\d+$/.test(given)) throw new UnknownSubject(`--environment takes an environment id, not ${JSON.stringify(given)}`)
    return Number(given)
  }
  const installation = await readInstallation(log)
  if (!installation) throw new UnknownSubject('no installation yet: give --environment')
  return installation.environmentId
}

/**
 * The person behind a distinct id as the persons read model held it at the cutoff, with its
 * distinct ids in stored order in place of its page numbers: a replay of that projector alone.
 */
const personAt = async (log: EventLog, environmentId: number, distinctId: string, cutoff: Cutoff, scratchRoot: string, partitions: number): Promise<JsonObject | null> => {
  const scratch = scratchStore(scratchRoot)
  try {
    await replay({ log, store: scratch.store, projectors: [persons], until: await resolveCutoff(log, cutoff), partitions })
    const build = (await new ProjectionRegistry(scratch.store).read(persons.name))?.active ?? { version: persons.version, build: 1 }
    const mapping = await scratch.store.get<DistinctIdRecord>(physicalCollection(PERSON_DISTINCT_IDS, build), distinctIdKey(environmentId, distinctId))
    if (!mapping?.person_id) return null
    const person = await scratch.store.get<PersonRecord>(physicalCollection(PERSONS, build), personKey(environmentId, mapping.person_id))
    if (!person) return null
    const distinctIds: string[] = []
    for (let page = person.first_page; page <= person.last_page; page++) {
      if (page === 0) distinctIds.push(...person.distinct_ids)
      else distinctIds.push(...(await scratch.store.get<DistinctIdPage>(physicalCollection(PERSON_DISTINCT_ID_PAGES, build), distinctIdPageKey(environmentId, person.uuid, page)))?.ids ?? [])
    }
    const { first_page: _first, last_page: _last, ...stored } = person
    return { ...stored, distinct_ids: distinctIds }
  } finally {
    await scratch.dispose()
  }
}

/**
 * An insight as it stood at the cutoff with its results then, as `?as_of=` answers them: its query
 * run over the events and persons the log held then (a replay of the log from its start).
 */
const insightWithResults = async (log: EventLog, insight: Insight, cutoff: Cutoff): Promise<JsonObject> => {
  const { results } = await resultsAsOf(log, insight.environment_id, cutoff, null)
  return { ...insight, ...(await results(insight)) }
}

const stateAt = async (log: EventLog, subject: AuditSubject, cutoff: Cutoff, args: AuditArgs): Promise<AuditOutput | null> => {
  const { environment, scratchRoot } = args
  if (subject.kind === 'resource') {
    const { activity, stream } = subject.resource
    const state = await stateAsOf(log, stream(subject.id), activity.evolve, activity.initialState, cutoff)
    if (state === null) return { json: null, text: `${stream(subject.id)} did not exist then` }
    const shown = subject.resource.kind === 'insight' ? await insightWithResults(log, state as Insight, cutoff) : state
    return { json: shown, text: JSON.stringify(shown, null, 2) }
  }
  if (subject.kind === 'person') {
    const person = await personAt(log, await environmentOf(log, environment), subject.distinctId, cutoff, scratchRoot, args.partitions ?? 1)
    return { json: person, text: person === null ? `no person had distinct id ${subject.distinctId} then` : JSON.stringify(person, null, 2) }
  }
  return null
}

/**
 * `hedgelog audit`: a resource's trail, oldest first with log positions; with `--at`, the
 * resource as it stood then (a plain stream lists its events up to then).
 */
export const audit = async (log: EventLog, args: AuditArgs): Promise<AuditOutput> => {
  const subject = auditSubject(auditedResources, args.words)
  const cutoff = cutoffOf(args.at)
  if (cutoff) {
    const state = await stateAt(log, subject, cutoff, args)
    if (state) return state
  }
  const lines = subject.kind === 'person'
    ? await personHistory(log, await environmentOf(log, args.environment), subject.distinctId, cutoff)
    : await streamHistory(log, subject, cutoff)
  return { json: lines, text: lines.length === 0 ? 'no events' : lines.map(lineText).join('\n') }
}
