/** Scheme, optional user info, host (or bracketed IPv6), optional port, then the path. */
const URL_PARTS = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::\d*)?([^?#]*)/i

/** Host and path of an absolute URL, as ClickHouse's `domain()` and `path()` read them; null otherwise. */
export const urlParts = (url: string): { host: string; path: string } | null => {
  const match = URL_PARTS.exec(url)
  return match ? { host: match[1]!, path: match[2]! } : null
}
