/** Drains an async iterable into an array. */
export const collect = async <T>(iterable: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = []
  for await (const item of iterable) out.push(item)
  return out
}
