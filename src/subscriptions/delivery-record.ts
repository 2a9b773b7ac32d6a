import type { JsonObject } from '../eventlog/port.js'

/** One settled delivery of a subscription (scheduled or test), as its history lists it. */
export interface DeliveryRecord extends JsonObject {
  id: string
  subscription_id: number
  /** The event's revision in the subscription's stream: orders a subscription's deliveries. */
  sequence: number
  occurrence: string | null
  status: 'delivered' | 'failed'
  attempts: number
  reason: string | null
  target_type: string
  target_value: string
  recipients: string[]
  test: boolean
  at: string
}

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    subscription_deliveries: DeliveryRecord
  }
}
