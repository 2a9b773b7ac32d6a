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
