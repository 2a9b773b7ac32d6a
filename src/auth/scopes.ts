/** The scope objects PostHog's personal API keys know; a scope is `<object>:read|write` or `*`. */
export const SCOPE_OBJECTS = [
  'action', 'activity_log', 'annotation', 'batch_export', 'cohort', 'dashboard', 'dashboard_template',
  'early_access_feature', 'error_tracking', 'event_definition', 'experiment', 'export', 'feature_flag', 'group',
  'hog_function', 'insight', 'notebook', 'organization', 'organization_member', 'person', 'plugin', 'project',
  'property_definition', 'query', 'session_recording', 'session_recording_playlist', 'sharing_configuration',
  'subscription', 'survey', 'user', 'webhook',
] as const

export const ALL_SCOPES = '*'

const OBJECTS: ReadonlySet<string> = new Set(SCOPE_OBJECTS)

export const isValidScope = (scope: string): boolean => {
  if (scope === ALL_SCOPES) return true
  const [object, action, ...rest] = scope.split(':')
  return rest.length === 0 && OBJECTS.has(object ?? '') && (action === 'read' || action === 'write')
}

/**
 * Whether the key's scopes grant `required`: `*` grants all, and `x:write` implies `x:read`.
 * A legacy key without scopes (null) may do anything.
 */
export const grants = (scopes: readonly string[] | null, required: string): boolean => {
  if (scopes === null) return true
  if (scopes.includes(ALL_SCOPES) || scopes.includes(required)) return true
  const [object, action] = required.split(':')
  return action === 'read' && scopes.includes(`${object}:write`)
}
