/** A JSON value printed as Python's `str()` prints it, for messages that quote PostHog's. */
export const pythonText = (value: unknown): string => (typeof value === 'string' ? value : pythonRepr(value))

const pythonRepr = (value: unknown): string => {
  if (value === null || value === undefined) return 'None'
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`
  if (typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${pythonRepr(key)}: ${pythonRepr(item)}`).join(', ')}}`
  }
  return String(value)
}

/** DRF's refusal of a value outside a field's choices; any JSON the client sent is quoted safely. */
export const invalidChoice = (value: unknown): string => `"${pythonText(value)}" is not a valid choice.`
