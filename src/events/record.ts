import type { JsonObject } from '../eventlog/port.js'

/** `events` document `<environmentId>:<uuid>`: what the events API lists. */
export interface EventRecord extends JsonObject {
  environment_id: number
  uuid: string
  event: string
  distinct_id: string
  timestamp: string
  properties: JsonObject
  elements_chain: string
}

export const eventKey = (environmentId: number, uuid: string): string => `${environmentId}:${uuid}`

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    events: EventRecord
  }
}
