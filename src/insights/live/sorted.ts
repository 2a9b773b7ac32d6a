/** The first index of sorted `items` for which `before` no longer holds (items before it all hold). */
export const firstNotBefore = <T>(items: readonly T[], before: (item: T) => boolean): number => {
  let low = 0
  let high = items.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (before(items[middle]!)) low = middle + 1
    else high = middle
  }
  return low
}

/** Two sorted lists as one: an item of `b` goes before an item of `a` only when `goesFirst(b item, a item)`. */
export const mergeSorted = <T>(a: readonly T[], b: readonly T[], goesFirst: (fromB: T, fromA: T) => boolean): T[] => {
  const out: T[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) out.push(goesFirst(b[j]!, a[i]!) ? b[j++]! : a[i++]!)
  while (i < a.length) out.push(a[i++]!)
  while (j < b.length) out.push(b[j++]!)
  return out
}
