import type { JsonObject } from '../eventlog/port.js'
import type { ReadModels } from '../readstore/read-models.js'
import { basicUser } from './users.js'

export type BasicUser = ReturnType<typeof basicUser>

/** Each user of a set of uuids, read once, in `shape`; unknown uuids are left out. */
const usersAs = async <T>(models: ReadModels, uuids: Iterable<string>, shape: (user: JsonObject) => T): Promise<Map<string, T>> => {
  const found = new Map<string, T>()
  for (const uuid of new Set(uuids)) {
    const user = await models.get('users', uuid)
    if (user) found.set(uuid, shape(user))
  }
  return found
}

/** Basic-user shapes for a set of user uuids, each read once. */
export const basicUsers = (models: ReadModels, uuids: Iterable<string>): Promise<Map<string, BasicUser>> => usersAs(models, uuids, basicUser)

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
export const basicUserTexts = (models: ReadModels, uuids: Iterable<string>): Promise<Map<string, string>> => usersAs(models, uuids, basicUserText)
