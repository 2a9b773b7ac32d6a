import type { JsonObject } from '../eventlog/port.js'
import { KeptShapes } from '../kernel/kept-shapes.js'
import type { ReadModels } from '../readstore/read-models.js'
import { basicUser, type BasicUser } from './users.js'

/** Basic users of kept (frozen) user documents, built once per document. */
const shapes = new KeptShapes<JsonObject, [], BasicUser>()

/** Basic-user shapes for a set of user uuids, each read once; unknown uuids are left out. */
export const basicUsers = async (models: ReadModels, uuids: Iterable<string>): Promise<Map<string, BasicUser>> => {
  const found = new Map<string, BasicUser>()
  for (const uuid of new Set(uuids)) {
    const user = await models.get('users', uuid)
    if (user) found.set(uuid, shapes.shape(user, [], basicUser))
  }
  return found
}
