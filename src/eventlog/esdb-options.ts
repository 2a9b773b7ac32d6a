/**
 * Connection-string options the EventStoreDB adapter cannot honour. The client reads option keys
 * case-insensitively and ignores `_` and `-` in them, so `throw_on_append_failure` is the same key.
 */
const flat = (key: string): string => key.trim().toLowerCase().replace(/[_-]/g, '')

/**
 * Why this connection string is refused, or null. `throwOnAppendFailure=false` makes the client
 * answer a failed append with `{success: false}` instead of an error (and, on batch appends, with a
 * wrong revision): every append would look durable.
 */
export const refusedEsdbOption = (connectionString: string): string | null => {
  const query = connectionString.indexOf('?')
  if (query < 0) return null
  for (const pair of connectionString.slice(query + 1).split('&')) {
    const [key = '', value = ''] = pair.split('=')
    if (flat(key) === 'throwonappendfailure' && value.trim() !== 'true') {
      return 'throwOnAppendFailure must be left at its default (true): failed appends would otherwise look written'
    }
  }
  return null
}

/**
 * The connection string with `defaultDeadline` (the client's gRPC deadline of every call that is
 * given none) set to `ms`, unless it already names one: a deadline in the URL is the operator's.
 */
export const withDefaultDeadline = (connectionString: string, ms: number): string => {
  const query = connectionString.indexOf('?')
  const pairs = query < 0 ? [] : connectionString.slice(query + 1).split('&')
  if (pairs.some((pair) => flat(pair.split('=')[0] ?? '') === 'defaultdeadline')) return connectionString
  const separator = query < 0 ? '?' : connectionString.endsWith('?') || connectionString.endsWith('&') ? '' : '&'
  return `${connectionString}${separator}defaultDeadline=${ms}`
}
