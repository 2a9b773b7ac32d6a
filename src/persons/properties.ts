import { type JsonObject, isJsonObject } from '../eventlog/port.js'
import { copyOf, jsonEqual, overlay } from './json.js'
import { LIFTED_PROPERTIES, type NormalisedEvent } from './normalise.js'
import { setOwn } from '../kernel/own-value.js'

/** What one event asks of its person's properties. */
export interface PropertyOperations {
  readonly set: JsonObject
  readonly setOnce: JsonObject
  readonly unset: readonly string[]
}

const NONE: PropertyOperations = { set: {}, setOnce: {}, unset: [] }

/** A `$groupidentify` sets group properties only; its person `$set`s are ignored. */
const NO_PERSON_PROPERTY_EVENTS = new Set(['$groupidentify'])

/** `$unset` is a list of keys, or an object whose keys are meant. */
const unsetKeys = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.filter((key) => typeof key === 'string')
  return isJsonObject(value) ? Object.keys(value) : []
}

export const operationsOf = (event: NormalisedEvent): PropertyOperations => {
  if (NO_PERSON_PROPERTY_EVENTS.has(event.event)) return NONE
  const { properties } = event
  const set = properties['$set']
  const setOnce = properties['$set_once']
  const unset = properties['$unset']
  if (set === undefined && setOnce === undefined && unset === undefined) return NONE
  return { set: isJsonObject(set) ? set : {}, setOnce: isJsonObject(setOnce) ? setOnce : {}, unset: unsetKeys(unset) }
}

/** A new person's properties: `$set` beats `$set_once`; `$unset` does not apply on creation. */
export const createdProperties = (operations: PropertyOperations, creatorEventUuid: string): JsonObject => {
  const properties = overlay(copyOf(operations.setOnce), operations.set)
  properties['$creator_event_uuid'] = creatorEventUuid
  return properties
}

export interface PropertyChange {
  readonly properties: JsonObject
  /** Keys given a value they did not have before. */
  readonly updated: readonly string[]
  /** Whether any updated key is new to the person, or any key was removed. */
  readonly structural: boolean
}

/**
 * `$set_once` (only keys the person lacks; a key holding null counts as present), then `$set`
 * (keys whose value differs, overriding what `$set_once` just staged), then `$unset`. Null when
 * nothing changes.
 */
export const applyOperations = (current: JsonObject, operations: PropertyOperations): PropertyChange | null => {
  let next: JsonObject | null = null
  const updated = new Set<string>()
  let structural = false
  for (const [key, value] of Object.entries(operations.setOnce)) {
    if (Object.hasOwn(current, key)) continue
    setOwn(next ??= copyOf(current), key, value)
    updated.add(key)
    structural = true
  }
  for (const [key, value] of Object.entries(operations.set)) {
    const before = next ?? current
    if (Object.hasOwn(before, key) && jsonEqual(before[key], value)) continue
    if (!Object.hasOwn(current, key)) structural = true
    setOwn(next ??= copyOf(current), key, value)
    updated.add(key)
  }
  for (const key of operations.unset) {
    if (!Object.hasOwn(next ?? current, key)) continue
    next ??= copyOf(current)
    delete next[key]
    updated.delete(key)
    structural = true
  }
  return next === null ? null : { properties: next, updated: [...updated], structural }
}

/** Events that always write their person's changes. */
const PERSON_EVENTS = new Set(['$identify', '$set', '$create_alias', '$merge_dangerously'])
const AUTOMATIC = new Set(LIFTED_PROPERTIES)
const isAutomatic = (key: string): boolean =>
  AUTOMATIC.has(key) || (key.startsWith('$geoip_') && key !== '$geoip_country_name' && key !== '$geoip_city_name')

/**
 * PostHog does not write a change on its own when an ordinary event only refreshes properties
 * it sets automatically (browser, URL, UTM, most GeoIP) that the person already has.
 */
export const worthWriting = (eventName: string, change: PropertyChange): boolean =>
  PERSON_EVENTS.has(eventName) || change.structural || change.updated.some((key) => !isAutomatic(key))
