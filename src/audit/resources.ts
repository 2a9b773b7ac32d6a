import type { AuditedResource } from '../readstore/audited-resource.js'

/** The audited resource of one kind, if any. */
export const auditedKind = (resources: readonly AuditedResource[], kind: string): AuditedResource | undefined =>
  resources.find((resource) => resource.kind === kind)

/** The resource a stream name belongs to, e.g. `dashboard-12`. */
export const resourceOfStream = (resources: readonly AuditedResource[], stream: string): { resource: AuditedResource; id: number } | null => {
  const match = /^([a-z]+)-(\d+)$/.exec(stream)
  if (!match) return null
  const resource = resources.find((r) => r.stream(0) === `${match[1]}-0`)
  return resource ? { resource, id: Number(match[2]) } : null
}
