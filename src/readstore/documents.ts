import type { JsonObject } from '../eventlog/port.js'
import type { Environment } from './environment.js'

/**
 * Every read model queries read, by logical collection name, with the type of its documents.
 * JsonObject where the projector writes a plain object with no type of its own. A feature folder
 * adds the collections whose document types it defines (`declare module` beside each type), so
 * this layer names no type of a layer above it.
 */
export interface ReadModelDocuments {
  /** Environments are read by the edge layer (every environment-scoped route), so their type is here. */
  environments: Environment
}

/** A map from collection name to document type, as `ReadModels` reads one. */
export type DocumentTypes<M> = { readonly [C in keyof M]: JsonObject }

/** A collection of `M`, by its name. */
export type CollectionOf<M> = keyof M & string
