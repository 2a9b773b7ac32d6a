import { type JsonObject, isJsonObject } from '../eventlog/port.js'

/** One autocaptured element, as PostHog's events API lists it. */
export interface Element extends JsonObject {
  event: null
  text: string | null
  tag_name: string | null
  attr_class: string[] | null
  href: string | null
  attr_id: string | null
  nth_child: number | null
  nth_of_type: number | null
  attributes: Record<string, string>
  order: number
}

const escapeQuotes = (text: string): string => text.replace(/"/g, '\\"')
const stringOr = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

const classesOf = (element: JsonObject): string[] => {
  const raw = element['attr__class'] ?? element['classes']
  if (Array.isArray(raw)) return raw.filter((name): name is string => typeof name === 'string' && name !== '')
  return typeof raw === 'string' ? raw.split(' ').filter((name) => name !== '') : []
}

/** One element of a client's `$elements` in PostHog's chain notation: `tag.class:key="value"…`. */
const elementString = (element: JsonObject): string => {
  let out = stringOr(element['tag_name']) ?? ''
  for (const name of classesOf(element).sort()) out += `.${name.replace(/"/g, '')}`
  const attributes: Record<string, unknown> = {}
  const text = stringOr(element['$el_text'])
  if (text !== null) attributes['text'] = text.slice(0, 400)
  attributes['nth-child'] = element['nth_child'] ?? 0
  attributes['nth-of-type'] = element['nth_of_type'] ?? 0
  const href = stringOr(element['attr__href'])
  if (href !== null) attributes['href'] = href.slice(0, 2048)
  const id = stringOr(element['attr__id'])
  if (id !== null) attributes['attr_id'] = id
  for (const [key, value] of Object.entries(element)) if (key.startsWith('attr__')) attributes[key] = value
  const pairs = Object.keys(attributes).sort().map((key) => `${escapeQuotes(key)}="${escapeQuotes(String(attributes[key]))}"`)
  return `${out}:${pairs.join('')}`
}

/** The event's elements chain: `$elements_chain` as sent, else built from `$elements`. */
export const elementsChainOf = (properties: JsonObject): string => {
  const chain = properties['$elements_chain']
  if (typeof chain === 'string') return chain
  const elements = properties['$elements']
  return Array.isArray(elements) ? elements.filter(isJsonObject).map(elementString).join(';') : ''
}

const SPLIT_CHAIN = /(?:[^\s;"]|"(?:\\.|[^"])*")+/g
const ATTRIBUTE = /([^=":]+?)="((?:\\.|[^"\\])*)"/g

const numberOr = (value: string | undefined): number | null => {
  if (value === undefined || !/^-?\d+$/.test(value)) return null
  return Number(value)
}

/** Reads an elements chain back into elements, innermost first. */
export const parseElementsChain = (chain: string): Element[] => {
  const out: Element[] = []
  for (const [order, part] of (chain.match(SPLIT_CHAIN) ?? []).entries()) {
    const colon = part.search(/:(?:[A-Za-z0-9_-]*=|$)/)
    const head = colon < 0 ? part : part.slice(0, colon)
    const attributes: Record<string, string> = {}
    if (colon >= 0) {
      for (const match of part.slice(colon + 1).matchAll(ATTRIBUTE)) attributes[match[1]!] = match[2]!.replace(/\\"/g, '"')
    }
    const [tag, ...classes] = head.split('.')
    out.push({
      event: null,
      text: attributes['text'] ?? null,
      tag_name: tag ? tag : null,
      attr_class: classes.length > 0 ? classes : null,
      href: attributes['href'] ?? null,
      attr_id: attributes['attr_id'] ?? null,
      nth_child: numberOr(attributes['nth-child']),
      nth_of_type: numberOr(attributes['nth-of-type']),
      attributes,
      order,
    })
  }
  return out
}
