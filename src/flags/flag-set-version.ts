import type { JsonObject } from '../eventlog/port.js'

/** How many flag changes an environment has seen; decide's cache compares it to know it is current. */
export interface FlagSetVersion extends JsonObject {
  id: string
  environment_id: number
  version: number
}
