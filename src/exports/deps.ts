import type { EventLog } from '../eventlog/port.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { InsightResults } from '../insights/results.js'

/** What creating and reading exports needs of the service: the log, the read models and insights' results. */
export interface ExportDeps {
  readonly log: EventLog
  readonly models: ReadModels
  readonly insightResults: InsightResults
}
