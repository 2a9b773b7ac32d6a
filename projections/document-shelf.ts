import type { JsonObject } from '../src/eventlog/port.js'

/**
 * Documents by collection and id (null: the document does not exist). Each collection has a map
 * of its own, keyed by the id itself, so a lookup builds no key and hashes no new string.
 */
export class DocumentShelf {
  private readonly collections = new Map<string, Map<string, JsonObject | null>>()

  /** The collection's map, made when first asked for. */
  of(collection: string): Map<string, JsonObject | null> {
    let docs = this.collections.get(collection)
    if (!docs) this.collections.set(collection, docs = new Map())
    return docs
  }

  /** The document, null when it does not exist, undefined when the shelf does not hold it. */
  get(collection: string, id: string): JsonObject | null | undefined {
    return this.collections.get(collection)?.get(id)
  }

  set(collection: string, id: string, doc: JsonObject | null): void {
    this.of(collection).set(id, doc)
  }

  get size(): number {
    let size = 0
    for (const docs of this.collections.values()) size += docs.size
    return size
  }

  *entries(): Generator<[collection: string, id: string, doc: JsonObject | null]> {
    for (const [collection, docs] of this.collections) for (const [id, doc] of docs) yield [collection, id, doc]
  }

  /** Forgets every document of one collection. */
  drop(collection: string): void {
    this.collections.delete(collection)
  }

  clear(): void {
    this.collections.clear()
  }
}
