import { createHash } from 'node:crypto'
import { canonicalJson, sha256 } from '../src/kernel/canonical-json.js'
import type { ReadStore } from '../src/readstore/port.js'
import type { Projector } from '../src/readstore/projector.js'
import { physicalCollection, type Build } from '../src/readstore/names.js'

export interface CollectionDigest {
  readonly count: number
  readonly sha256: string
}

export interface ProjectionDigest {
  readonly projection: string
  readonly version: number
  readonly collections: Readonly<Record<string, CollectionDigest>>
  /** SHA-256 over the collection digests in name order: equal iff every document is equal. */
  readonly sha256: string
}

/**
 * The auditor's proof that two builds hold the same read models: each document is written as
 * canonical JSON (sorted keys) in id order and hashed; builds and positions are left out, so two
 * rebuilds of the same log with the same code give the same digest.
 */
export const digestProjection = async (store: ReadStore, projector: Projector, build: Build): Promise<ProjectionDigest> => {
  const collections: Record<string, CollectionDigest> = {}
  for (const collection of [...projector.collections].sort()) {
    const hash = createHash('sha256')
    let count = 0
    for await (const { id, doc } of store.scan(physicalCollection(collection, build))) {
      hash.update(`${JSON.stringify(id)}:${canonicalJson(doc)}\n`)
      count++
    }
    collections[collection] = { count, sha256: hash.digest('hex') }
  }
  return {
    projection: projector.name,
    version: projector.version,
    collections,
    sha256: sha256(canonicalJson(collections)),
  }
}

