const quoted = (ids: readonly string[]): string[] => [...ids, ...ids.map((id) => `'${id}'`), ...ids.map((id) => `"${id}"`)]

/** Compared in lower case: `Guest` and `GUEST` are as illegal as `guest`. */
const ANY_CASE = new Set(quoted([
  'anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false',
]))
/** Compared exactly: `NaN` is illegal, `nan` is not. */
const EXACT = new Set(quoted(['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined']))

/**
 * Distinct ids that come from client bugs rather than users. They never take part in a merge;
 * ordinary events with them are processed as usual.
 */
export const isIllegalDistinctId = (id: string): boolean =>
  id.trim() === '' || ANY_CASE.has(id.toLowerCase()) || EXACT.has(id)
