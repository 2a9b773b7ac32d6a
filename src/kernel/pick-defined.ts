/** The named fields of `source` that are not undefined: what a partial update sets. */
export const pickDefined = <T extends object, const K extends keyof T>(source: T, keys: readonly K[]): { [P in K]?: Exclude<T[P], undefined> } => {
  const picked: { [P in K]?: Exclude<T[P], undefined> } = {}
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key] as Exclude<T[K], undefined>
  return picked
}
