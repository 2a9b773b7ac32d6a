import type { AnyBulkWriteOperation, Filter, SetFields, UpdateFilter } from 'mongodb'
import type { JsonObject } from '../eventlog/port.js'
import type { DocumentChange, StagingKey } from './port.js'
import { fromStored, type StoredDocument } from './mongo-keys.js'

/**
 * Staged writes live beside the documents they replace, in the same collection, as versions that
 * readers filter out until published. Marker keys start with `%`, which escaped document keys
 * never do, so they cannot meet a field of a document.
 *
 * A staged version of document `id` has `_id` `id␀tag`, `%of: id` and `%staged: tag`; a staged
 * deletion also has `%deleted: true`. Staging marks every existing version of `id` with
 * `%superseded: [tag, …]`. With `published` the tags whose commit has happened, a version is
 * visible when it is not staged or its tag is published, it is not superseded by a published
 * tag, and it is not a deletion. Publishing adds one tag to `published`, in the commit's small
 * transaction; folding each published version into its document later changes nothing readers see.
 */
export const STAGED = '%staged'
export const OF = '%of'
export const SUPERSEDED = '%superseded'
export const DELETED = '%deleted'

/** One document per staged attempt, in the reserved `staging` collection. */
export interface StagingDocument {
  _id: string
  group: string
  attempt: string
  published: boolean
  collections: string[]
}

export const tagOf = (key: StagingKey): string => `${key.group}#${key.attempt}`

export const stagedId = (id: string, tag: string): string => `${id}\u0000${tag}`

/** What readers may see, given the published tags. */
export const visibleFilter = (published: readonly string[]): Filter<StoredDocument> =>
  published.length === 0
    ? { [STAGED]: { $exists: false } }
    : { [STAGED]: { $in: [null, ...published] }, [SUPERSEDED]: { $nin: [...published] }, [DELETED]: { $ne: true } }

/** Narrows `filter` to visible versions. */
export const visibleOnly = (filter: Filter<StoredDocument>, published: readonly string[]): Filter<StoredDocument> =>
  Object.keys(filter).length === 0 ? visibleFilter(published) : { $and: [filter, visibleFilter(published)] }

/** The visible version of the documents whose id matches `id` (an id, or `{ $in: ids }`), whichever version holds it. */
export const visibleWithId = (id: string | { $in: string[] }, published: readonly string[]): Filter<StoredDocument> =>
  visibleOnly(published.length === 0 ? { _id: id } : { $or: [{ _id: id }, { [OF]: id }] }, published)

/** The document's id, whichever version holds it. */
export const idOf = (stored: StoredDocument): string => (typeof stored[OF] === 'string' ? stored[OF] : stored._id)

/** A stored version as the document readers get, without markers. */
export const withoutMarkers = <T extends JsonObject>(stored: StoredDocument): T => {
  const { [STAGED]: _staged, [OF]: _of, [SUPERSEDED]: _superseded, [DELETED]: _deleted, ...rest } = stored
  return fromStored<T>(rest as StoredDocument)
}

/** The writes that stage one collection's changes under `tag`; `stored` is each change's stored form. */
export const stagingOperations = (
  changes: readonly { change: DocumentChange; stored: Record<string, unknown> | null }[], tag: string,
): AnyBulkWriteOperation<StoredDocument>[] =>
  changes.flatMap(({ change, stored }) => {
    const version = { ...(stored ?? {}), [STAGED]: tag, [OF]: change.id, ...(stored === null ? { [DELETED]: true } : {}) }
    const supersede: UpdateFilter<StoredDocument> = { $addToSet: { [SUPERSEDED]: tag } as unknown as SetFields<StoredDocument> }
    return [
      { updateMany: { filter: { $or: [{ _id: change.id }, { [OF]: change.id }], [STAGED]: { $ne: tag } }, update: supersede } },
      { replaceOne: { filter: { _id: stagedId(change.id, tag) }, replacement: version as unknown as StoredDocument, upsert: true } },
    ]
  })

/** The writes that fold published versions into their documents and remove the versions. */
export const foldOperations = (versions: readonly StoredDocument[]): AnyBulkWriteOperation<StoredDocument>[] =>
  versions.flatMap((version) => {
    const id = idOf(version)
    const { _id, [STAGED]: _staged, [OF]: _of, [DELETED]: deleted, ...content } = version
    const write: AnyBulkWriteOperation<StoredDocument> = deleted === true
      ? { deleteOne: { filter: { _id: id } } }
      : { replaceOne: { filter: { _id: id }, replacement: content as StoredDocument, upsert: true } }
    return [write, { deleteOne: { filter: { _id } } }]
  })
