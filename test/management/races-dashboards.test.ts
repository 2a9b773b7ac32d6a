import t from 'tap'
import { issueApiKey } from '../../src/accounts/commands.js'
import { dashboardStream } from '../../src/dashboards/events.js'
import { addMember } from '../support/members.js'
import { bodyOf, caller, raceEveryPair, raceWorld, type Op } from '../support/races.js'
import { context } from '../support/world.js'

/** A dashboard made for one race, with the tile the ops contend for and where moves take it. */
interface Raced {
  readonly stream: string
  readonly url: string
  readonly tileId: number
  readonly destination: number
}

t.test('every pair of dashboard commands, raced on one dashboard, answers without a 5xx', async (t) => {
  const w = await raceWorld(t)
  const { api } = w
  const legacy = await issueApiKey(w.log, { userUuid: w.installation.user_uuid, scopes: null, label: 'legacy' }, context())
  await w.models.waitFor(legacy.position!, ['personal_api_keys'])
  const legacyApi = caller(w.app, w.bearer(legacy.value))
  const colleague = await addMember(w)
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`

  // Moved tiles land on a destination shared by a few races, well under the tile limit.
  let destination: Promise<Record<string, any>> | null = null
  let moves = 0
  const destinationId = async (): Promise<number> => {
    if (destination === null || ++moves % 40 === 0) destination = bodyOf(api('POST', base, { name: 'destination' }), 201)
    return (await destination)['id']
  }

  /**
   * A restricted dashboard with a text tile: the colleague not yet a collaborator and sharing
   * off, or the colleague collaborating and sharing on. (Restores race soft deletes among the pairs.)
   */
  const fresh = async (start: 'plain' | 'shared'): Promise<Raced> => {
    const created = await bodyOf(api('POST', base, { name: `raced from ${start}`, restriction_level: 37 }), 201)
    const url = `${base}${created['id']}/`
    const withTile = await bodyOf(api('PATCH', url, { tiles: [{ text: { body: 'contested' } }] }))
    if (start !== 'plain') {
      await bodyOf(api('POST', `${url}collaborators/`, { user_uuid: colleague.uuid, level: 37 }), 201)
      await bodyOf(api('PATCH', `${url}sharing/`, { enabled: true }))
    }
    return { stream: dashboardStream(created['id']), url, tileId: withTile['tiles'][0].id, destination: await destinationId() }
  }

  const ops: Record<string, Op<Raced>> = {
    'PATCH fields': { run: (d) => api('PATCH', d.url, { name: 'renamed', description: 'changed', pinned: true, tags: ['raced'] }) },
    'add tile': { run: (d) => api('PATCH', d.url, { tiles: [{ text: { body: 'added' } }] }) },
    'update tile': { run: (d) => api('PATCH', d.url, { tiles: [{ id: d.tileId, color: 'blue', layouts: { sm: { x: 1 } } }] }) },
    'delete tile': { run: (d) => api('PATCH', d.url, { tiles: [{ id: d.tileId, deleted: true }] }) },
    'soft delete': { run: (d) => api('PATCH', d.url, { deleted: true }) },
    restore: { run: (d) => api('PATCH', d.url, { deleted: false, name: 'restored' }) },
    'restrict to everyone': { run: (d) => api('PATCH', d.url, { restriction_level: 21 }) },
    'collaborator add': {
      run: (d) => api('POST', `${d.url}collaborators/`, { user_uuid: colleague.uuid, level: 37 }),
      // The collaborator it added, even if a concurrent removal already took it away again.
      check: (added) => (added.user_uuid === colleague.uuid && added.level === 37 && added.user?.uuid === colleague.uuid ? null : `added ${JSON.stringify(added)}`),
    },
    'collaborator remove': { run: (d) => api('DELETE', `${d.url}collaborators/${colleague.uuid}/`) },
    'sharing enable': { run: (d) => api('PATCH', `${d.url}sharing/`, { enabled: true }) },
    'sharing disable': { run: (d) => api('PATCH', `${d.url}sharing/`, { enabled: false }) },
    // Only "no 5xx" is asserted for moves: where a tile lands under concurrent moves is another matter.
    'move_tile out': { run: (d) => legacyApi('PATCH', `${d.url}move_tile/`, { tile: { id: d.tileId }, toDashboard: d.destination }) },
  }

  await raceEveryPair(t, { starts: ['plain', 'shared'], fresh, ops })
})
