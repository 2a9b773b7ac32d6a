import { parse as parseQuery } from 'node:querystring'

/** Longer query strings, or any with escapes, go to `node:querystring`. */
const PLAIN_LIMIT = 1000

/**
 * Query strings as Django reads them (`request.GET.get`): a repeated parameter has its last value,
 * so every route sees one string per name, never an array. What `node:querystring` parses; a short
 * query with nothing to decode (no `%`, no `+`) is split here without building its arrays.
 */
export const lastValues = (text: string): Record<string, string> => {
  if (text.length > PLAIN_LIMIT || text.includes('%') || text.includes('+')) return decodedLastValues(text)
  const values: Record<string, string> = {}
  for (const pair of text.split('&')) {
    if (pair === '') continue
    const equals = pair.indexOf('=')
    const name = equals < 0 ? pair : pair.slice(0, equals)
    if (name === '__proto__') return decodedLastValues(text)
    values[name] = equals < 0 ? '' : pair.slice(equals + 1)
  }
  return values
}

const decodedLastValues = (text: string): Record<string, string> => {
  const parsed = parseQuery(text)
  return Object.fromEntries(Object.entries(parsed).map(([name, value]) => [name, Array.isArray(value) ? value.at(-1) ?? '' : value ?? '']))
}
