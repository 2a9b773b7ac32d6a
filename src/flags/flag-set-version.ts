import type { JsonObject } from '../eventlog/port.js'

/** How many flag changes an environment has seen; decide's cache compares it to know it is current. */
export interface FlagSetVersion extends JsonObject {
  id: string
  environment_id: number
  version: number
}

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    flag_set_versions: FlagSetVersion
  }
}
