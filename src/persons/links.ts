import type { JsonObject } from '../eventlog/port.js'
import { partitionOf } from '../readstore/partition.js'
import type { ProjectionView } from '../readstore/projector.js'

/**
 * `<environmentId>:<distinctId>` → the set of distinct ids a merge may have joined it to, kept by
 * every partition of a partitioned persons build for itself: a union-find over every distinct id
 * the log has used. The persons of a set, and every event of its distinct ids, belong to the
 * partition of its root's key.
 */
export const PERSON_LINKS = 'person_links'

/** A distinct id in the union-find. Absent: the id was never used, so no document names it. */
export interface LinkRecord extends JsonObject {
  /** The distinct id this one's set was joined under; absent for the root of a set. */
  parent?: string
  /** Root only: the height bound of union by rank, which keeps every path short. */
  rank?: number
  /** Root only: an earlier log event used one of the set's ids, so the set may have documents. */
  seen?: boolean
  /**
   * Root only, for the log event at `originsAt`: the partitions whose documents the set may hold
   * because sets that had documents before that event joined it during the event. A set joined
   * twice within one log event (two merges of a request, or chunks of an import) holds documents
   * of more partitions than its root's.
   */
  origins?: number[]
  /** The position of the log event `origins` belongs to. */
  originsAt?: string
}

interface Root {
  readonly id: string
  readonly record: LinkRecord | null
}

export const linkKey = (environmentId: number, distinctId: string): string => `${environmentId}:${distinctId}`

/** Union by rank keeps a path below log2 of the ids joined; a longer one can only be damage. */
export const LONGEST_PATH = 64

const rootOf = (view: ProjectionView, environmentId: number, distinctId: string): Root => {
  let id = distinctId
  let record = view.get<LinkRecord>(PERSON_LINKS, linkKey(environmentId, id))
  for (let steps = 0; record?.parent !== undefined; steps++) {
    if (steps === LONGEST_PATH) throw new Error(`the links of distinct id ${distinctId} do not lead to a root`)
    id = record.parent
    record = view.get<LinkRecord>(PERSON_LINKS, linkKey(environmentId, id))
  }
  return { id, record }
}

/** The key whose partition holds the persons of `distinctId` and its events: its set's root. */
export const homeKeyOf = (view: ProjectionView, environmentId: number, distinctId: string): string =>
  linkKey(environmentId, rootOf(view, environmentId, distinctId).id)

const rankOf = (root: Root): number => root.record?.rank ?? 0
const seen = (root: Root): boolean => root.record?.seen === true

/**
 * The partitions whose documents of a set the log event at `at` must read: those its joins within
 * the event brought together, else its root's partition when an earlier event used it, else none.
 */
const originsOf = (root: Root, key: string, count: number, at: string): readonly number[] => {
  if (root.record?.originsAt === at && root.record.origins !== undefined) return root.record.origins
  return seen(root) ? [partitionOf(key, count)] : []
}

/**
 * Joins the sets of two distinct ids a merge of the log event at `at` names. A set no earlier
 * event used has no documents, so it is the one that joins the other; else the lower rank joins
 * the higher, and on a tie the source's set joins the target's. The partition of the joined set's
 * root waits for every other partition holding documents of either set to commit every earlier
 * event, then reads the moved documents as those partitions left them.
 */
export const joinLinks = (view: ProjectionView, environmentId: number, source: string, target: string, at: string): void => {
  const a = rootOf(view, environmentId, source)
  const b = rootOf(view, environmentId, target)
  if (a.id === b.id) return
  const aWins = seen(a) !== seen(b) ? seen(a) : rankOf(a) > rankOf(b)
  const [winner, loser] = aWins ? [a, b] : [b, a]
  const winnerKey = linkKey(environmentId, winner.id)
  const loserKey = linkKey(environmentId, loser.id)
  const { count, index } = view.partition
  const origins = [...new Set([...originsOf(winner, winnerKey, count, at), ...originsOf(loser, loserKey, count, at)])].sort((x, y) => x - y)
  if (view.owns(winnerKey)) {
    for (const from of origins) if (from !== index) view.awaitPartition(from)
  }
  view.put(PERSON_LINKS, loserKey, { parent: winner.id } satisfies LinkRecord)
  const rank = rankOf(winner) === rankOf(loser) ? rankOf(winner) + 1 : rankOf(winner)
  view.put(PERSON_LINKS, winnerKey, {
    rank, ...(seen(a) || seen(b) ? { seen: true } : {}), ...(origins.length > 0 ? { origins, originsAt: at } : {}),
  } satisfies LinkRecord)
}

/** Marks the set of a distinct id a log event used: from the next log event on, it may have documents. */
export const seeLink = (view: ProjectionView, environmentId: number, distinctId: string): void => {
  const root = rootOf(view, environmentId, distinctId)
  if (!seen(root)) view.put(PERSON_LINKS, linkKey(environmentId, root.id), { ...root.record, seen: true } satisfies LinkRecord)
}
