import type { Environment } from '../readstore/environment.js'
import type { InsightDocument } from '../insights/document.js'
import type { Rendered } from './csv-export.js'
import { notSupportedForResource } from './errors.js'
import type { ExportDeps } from './deps.js'

/** An insight's chart as a PNG. Not drawn yet: pictures are refused as PostHog refuses what it cannot export. */
export const renderPicture = async (_deps: ExportDeps, _environment: Environment, _insight: InsightDocument): Promise<Rendered> => {
  throw notSupportedForResource()
}
