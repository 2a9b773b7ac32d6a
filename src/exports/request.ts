import type { JsonObject } from '../eventlog/port.js'
import { ValidationFailed } from '../kernel/errors.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { DashboardDocument } from '../dashboards/document.js'
import type { InsightDocument } from '../insights/document.js'
import { EXPORT_FORMATS, type ExportFormat } from './events.js'
import { invalidChoice } from '../kernel/python-text.js'

/** What `POST …/exports/` asks for, its targets found in this environment. */
export interface ExportRequest {
  readonly format: ExportFormat
  readonly dashboard: DashboardDocument | null
  readonly insight: InsightDocument | null
  readonly exportContext: JsonObject | null
  /** Absent: PostHog's default for the API; null: the model's default for the format. */
  readonly expiresAfter: string | null | undefined
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

const DATETIME_FORMAT = 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'
/** What DRF's DateTimeField reads: ISO 8601, a date alone meaning its midnight (UTC when no offset is given). */
const DATETIME = /^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d{1,6})?)?)?(?:Z|[+-]\d\d:?\d\d)?$/

const readDatetime = (value: unknown): string | null => {
  if (value === null) return null
  if (typeof value !== 'string' || !DATETIME.test(value.trim())) throw new ValidationFailed(DATETIME_FORMAT, 'expires_after', 'invalid')
  const text = value.trim()
  const withTime = text.length === 10 ? `${text}T00:00:00` : text.replace(' ', 'T')
  const ms = Date.parse(/(?:Z|[+-]\d\d:?\d\d)$/.test(withTime) ? withTime : `${withTime}Z`)
  if (Number.isNaN(ms)) throw new ValidationFailed(DATETIME_FORMAT, 'expires_after', 'invalid')
  return new Date(ms).toISOString()
}

/** A primary key as DRF's PrimaryKeyRelatedField reads it: an integer, or a string of one. */
const readPk = (value: unknown, attr: string): number | null => {
  if (value === null || value === undefined || value === '') return null
  if (typeof value === 'boolean' || (typeof value !== 'number' && typeof value !== 'string')) {
    throw new ValidationFailed(`Incorrect type. Expected pk value, received ${typeof value === 'boolean' ? 'bool' : Array.isArray(value) ? 'list' : 'dict'}.`, attr, 'incorrect_type')
  }
  const text = String(value).trim()
  if (!/^-?\d{1,15}$/.test(text)) throw new ValidationFailed(`Incorrect type. Expected pk value, received ${typeof value === 'number' ? 'float' : 'str'}.`, attr, 'incorrect_type')
  return Number(text)
}

const missing = (attr: string, id: number): never => {
  throw new ValidationFailed(`Invalid pk "${id}" - object does not exist.`, attr, 'does_not_exist')
}

/** A dashboard or insight named by the request: an unknown or deleted one is DRF's `does_not_exist` (PostHog's default managers leave deleted ones out). */
const findTarget = async <C extends 'dashboards' | 'insights'>(models: ReadModels, collection: C, attr: string, id: number | null) => {
  if (id === null) return null
  const doc = await models.get(collection, String(id))
  if (!doc || doc.deleted) return missing(attr, id)
  return doc
}

/** PostHog's serializer refuses, after the fields, a dashboard or insight of another environment. */
const checkTeam = (doc: { environment_id: number } | null, environment: Environment, attr: 'dashboard' | 'insight'): void => {
  if (doc && doc.environment_id !== environment.id) throw new ValidationFailed(`This ${attr} does not belong to your team.`, attr)
}

/**
 * The body of `POST …/exports/`, checked in the order PostHog's serializer checks it: each field
 * (`dashboard`, `insight`, `export_format`, `export_context`, `expires_after`), then that the
 * export has something to export and that its targets are this environment's.
 */
export const readExportRequest = async (models: ReadModels, environment: Environment, body: unknown): Promise<ExportRequest> => {
  const fields = isObject(body) ? body : {}
  const dashboard = await findTarget(models, 'dashboards', 'dashboard', readPk(fields['dashboard'], 'dashboard'))
  const insight = await findTarget(models, 'insights', 'insight', readPk(fields['insight'], 'insight'))
  const format = fields['export_format']
  if (format === undefined) throw new ValidationFailed('This field is required.', 'export_format', 'required')
  if (format === null) throw new ValidationFailed('This field may not be null.', 'export_format', 'null')
  if (format === '') throw new ValidationFailed('"" is not a valid choice.', 'export_format', 'invalid_choice')
  if (!(EXPORT_FORMATS as readonly unknown[]).includes(format)) {
    throw new ValidationFailed(invalidChoice(format), 'export_format', 'invalid_choice')
  }
  const context = fields['export_context']
  if (context !== undefined && context !== null && !isObject(context)) {
    throw new ValidationFailed('Export context must be a JSON object.', 'export_context')
  }
  const exportContext = isObject(context) ? (context as JsonObject) : null
  const expiresAfter = fields['expires_after'] === undefined ? undefined : readDatetime(fields['expires_after'])
  if (!dashboard && !insight && !exportContext) {
    throw new ValidationFailed('Either dashboard, insight or export_context is required for an export.')
  }
  checkTeam(dashboard, environment, 'dashboard')
  checkTeam(insight, environment, 'insight')
  return { format: format as ExportFormat, dashboard, insight, exportContext, expiresAfter }
}
