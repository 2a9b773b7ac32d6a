import type { JsonObject } from '../eventlog/port.js'
import type { RenderedFormat } from './events.js'

const EXTENSIONS: Readonly<Record<RenderedFormat, string>> = { 'image/png': 'png', 'text/csv': 'csv' }

export const extensionOf = (format: RenderedFormat): string => EXTENSIONS[format]

/**
 * Django's `slugify`: accents dropped (NFKD, then ASCII only), lower case, anything but letters,
 * digits, underscores, spaces and hyphens removed, runs of spaces and hyphens made one hyphen,
 * and hyphens and underscores trimmed from both ends.
 */
export const slugify = (value: string): string =>
  value.normalize('NFKD').replace(/[^\x00-\x7f]/g, '').toLowerCase()
    .replace(/[^\w\s-]/g, '').replace(/[-\s]+/g, '-').replace(/^[-_]+|[-_]+$/g, '')

/** `2024-05-01T12:03:04.567Z` → `2024-05-01-120304`, as PostHog stamps file names (UTC). */
const stamp = (at: string): string => {
  const iso = new Date(at).toISOString()
  return `${iso.slice(0, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`
}

export interface FilenameParts {
  readonly format: RenderedFormat
  readonly exportContext: JsonObject | null
  readonly dashboardName: string | null
  /** The insight's name, its derived name, or null; only read for an insight's export. */
  readonly insight: { readonly name: string | null; readonly derived_name: string | null } | null
  readonly createdAt: string
}

/**
 * PostHog's `ExportedAsset.filename`: `export_context.filename` slugified when given, else
 * `export-<dashboard name>` or `export-<insight name>` (its derived name, else `insight`), then
 * the creation time and the format's extension: `export-weekly-signups-2024-05-01-120304.png`.
 */
export const exportFilename = (parts: FilenameParts): string => {
  let name = 'export'
  const given = parts.exportContext?.['filename']
  if (given !== undefined && given !== null && given !== '' && given !== false && given !== 0) name = slugify(String(given))
  else if (parts.dashboardName !== null) name = `${name}-${slugify(parts.dashboardName)}`
  else if (parts.insight) name = `${name}-${slugify(parts.insight.name || parts.insight.derived_name || 'insight')}`
  return `${name}-${stamp(parts.createdAt)}.${extensionOf(parts.format)}`
}
