const stringLength = (text: string): number => {
  let length = 2
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x0c || code === 0x0a || code === 0x0d || code === 0x09) length += 2
    else if (code < 0x20 || code > 0x7e) length += 6
    else length += 1
  }
  return length
}

const separated = (lengths: number[]): number => 2 + lengths.reduce((sum, n) => sum + n, 0) + Math.max(0, lengths.length - 1) * 2

/**
 * The length of `json.dumps(value)` in Python with its defaults (`", "` and `": "` between
 * items, everything outside printable ASCII escaped as `\uXXXX`): how PostHog measures the size of
 * a JSON field before it refuses it. Numbers count as JavaScript prints them.
 */
export const pythonJsonLength = (value: unknown): number => {
  if (value === null || value === undefined) return 4
  if (typeof value === 'boolean') return value ? 4 : 5
  if (typeof value === 'number') return JSON.stringify(value).length
  if (typeof value === 'string') return stringLength(value)
  if (Array.isArray(value)) return separated(value.map(pythonJsonLength))
  return separated(Object.entries(value).map(([key, item]) => stringLength(key) + 2 + pythonJsonLength(item)))
}
