const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/**
 * Text made safe for HTML: as an element's content or as a double- or single-quoted attribute
 * value. Every text a user wrote or a query produced goes through this before it reaches a page.
 */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => ENTITIES[character]!)

/** A value that should be text but may be anything (read from a result), as escaped text; `fallback` when it is empty. */
export const escapeText = (value: unknown, fallback = ''): string => {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value)
  return escapeHtml(text === '' ? fallback : text)
}
