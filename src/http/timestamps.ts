/**
 * A stored ISO time as PostHog's API prints it: UTC with `Z`, and microseconds only when the
 * fraction is not zero (`2022-01-01T00:00:00Z`, `2024-05-01T10:11:12.123000Z`).
 */
export const apiTime = <T extends string | null | undefined>(iso: T): T => {
  if (typeof iso !== 'string') return iso
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]00:00)?$/.exec(iso)
  if (!match) return iso
  const fraction = (match[2] ?? '').padEnd(6, '0')
  return `${match[1]}${/^0*$/.test(fraction) ? '' : `.${fraction}`}Z` as T
}
