/**
 * The types of an event union, listed once. The list is written as a record with one key per
 * type, so a type added to the union and not to the list fails to compile, and so does a key
 * that names no type of the union.
 */
export const eventTypes = <T extends string>(types: Record<T, true>): readonly T[] => Object.keys(types) as T[]
