import type { JsonObject } from '../eventlog/port.js'
import type { ReadModels } from '../readstore/read-models.js'
import { basicUser } from './users.js'

export type BasicUser = ReturnType<typeof basicUser>

/** Basic-user shapes for a set of user uuids, each read once. */
export const basicUsers = async (models: ReadModels, uuids: Iterable<string>): Promise<Map<string, BasicUser>> => {
  const found = new Map<string, BasicUser>()
  for (const uuid of new Set(uuids)) {
    const user = await models.get('users', uuid)
    if (user) found.set(uuid, basicUser(user))
  }
  return found
}

/** Texts of frozen user documents, which cannot change while they are kept. */
const written = new WeakMap<JsonObject, string>()

/** A user's basic shape as JSON text (`JSON.stringify(basicUser(user))`). */
export const basicUserText = (user: JsonObject): string => {
  let text = written.get(user)
  if (text === undefined) {
    text = JSON.stringify(basicUser(user))
    if (Object.isFrozen(user)) written.set(user, text)
  }
  return text
}

/** Basic-user shapes as JSON text for a set of user uuids, each read once. */
export const basicUserTexts = async (models: ReadModels, uuids: Iterable<string>): Promise<Map<string, string>> => {
  const found = new Map<string, string>()
  for (const uuid of new Set(uuids)) {
    const user = await models.get('users', uuid)
    if (user) found.set(uuid, basicUserText(user))
  }
  return found
}
