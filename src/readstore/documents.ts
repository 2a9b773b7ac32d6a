import type { JsonObject } from '../eventlog/port.js'
import type { Environment } from './environment.js'

/**
 * Every read model queries read, by logical collection name, with the type of its documents.
 * JsonObject where the projector writes a plain object with no type of its own. A feature folder
 * adds the collections whose document types it defines (`declare module` beside each type), so
 * this layer names no type of a layer above it.
 */
export interface ReadModelDocuments {
  organizations: JsonObject
  users: JsonObject
  projects: JsonObject
  environments: Environment
  personal_api_keys: JsonObject
  invites: JsonObject
  /** `<environmentId>` → the environment's last integer person id. */
  person_counters: JsonObject
  /** Commands across two streams whose second step is not written yet, by `<kind>-<id>`. */
  unfinished_commands: JsonObject
}

/** A map from collection name to document type, as `ReadModels` reads one. */
export type DocumentTypes<M> = { readonly [C in keyof M]: JsonObject }

/** A collection of `M`, by its name. */
export type CollectionOf<M> = keyof M & string
