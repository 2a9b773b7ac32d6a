import type { Test } from 'tap'
import { world } from './world.js'
import { client } from './client.js'
import { addAdmin, addMember, addOrganization } from './members.js'

export const CALLERS = ['owner', 'admin', 'member', 'foreign'] as const
export type Caller = typeof CALLERS[number]

/**
 * Organization A (the installation's) with an owner, an admin and a member, and organization B
 * with its own owner; `callers` holds a client for each, on keys that have every scope.
 */
export const twoOrganizations = async (t: Test) => {
  const w = await world(t)
  const [admin, member] = [await addAdmin(w), await addMember(w)]
  const b = await addOrganization(w)
  const callers: Record<Caller, ReturnType<typeof client>> = {
    owner: client(w.app, w.bearer(w.key.value)), admin: client(w.app, admin.headers), member: client(w.app, member.headers), foreign: client(w.app, b.headers),
  }
  return { ...w, a: w.installation, b, admin, member, callers }
}
