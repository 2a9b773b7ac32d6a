import t from 'tap'
import type { ProjectCreated } from '../../src/accounts/events.js'
import { NotFound, PermissionDenied } from '../../src/kernel/errors.js'
import { MAX_ENVIRONMENTS_PER_PROJECT } from '../../src/environments/limits.js'
import { projectEnvironmentsDecider, type AddEnvironment, type ProjectEvent } from '../../src/environments/project-decider.js'
import { spec } from '../support/given.js'

const given = spec(projectEnvironmentsDecider)
const at = '2024-05-01T00:00:00.000Z'
const created: ProjectCreated = { type: 'ProjectCreated', data: { projectId: 7, organizationId: 'org', name: 'p', createdBy: 'u', at } }
const added = (environmentId: number, demo = false): ProjectEvent => ({ type: 'ProjectEnvironmentAdded', data: { projectId: 7, environmentId, demo, at } })
const add = (environmentId: number, options: Partial<AddEnvironment> = {}): AddEnvironment =>
  ({ type: 'AddEnvironment', environmentId, demo: false, known: [{ id: 1, projectId: 7, demo: false }], at, ...options })
const counted = (count: number) => Array.from({ length: count }, (_, i) => added(100 + i))

t.test('an environment is counted while its project has room', async (t) => {
  given(created, ...counted(MAX_ENVIRONMENTS_PER_PROJECT - 2)).when(add(50)).then(t, [added(50)])
})

t.test('the project\'s own count and the read model\'s are joined, so one known to both counts once', async (t) => {
  const known = [{ id: 1, projectId: 7, demo: false }, { id: 100, projectId: 7, demo: false }]
  given(created, ...counted(MAX_ENVIRONMENTS_PER_PROJECT - 2)).when(add(50, { known })).then(t, [added(50)])
})

t.test('a full project refuses another environment', async (t) => {
  given(created, ...counted(MAX_ENVIRONMENTS_PER_PROJECT - 1)).when(add(50)).thenThrows(t, PermissionDenied)
})

t.test('environments of other projects do not count, but a demo anywhere in the organization does', async (t) => {
  const elsewhere = Array.from({ length: 12 }, (_, i) => ({ id: 200 + i, projectId: 8, demo: false }))
  given(created).when(add(50, { known: elsewhere })).then(t, [added(50)])
  given(created).when(add(51, { demo: true, known: [{ id: 300, projectId: 8, demo: true }] })).thenThrows(t, PermissionDenied)
  given(created, added(60, true)).when(add(61, { demo: true })).thenThrows(t, PermissionDenied)
  given(created, ...counted(MAX_ENVIRONMENTS_PER_PROJECT)).when(add(62, { demo: true })).then(t, [added(62, true)])
})

t.test('counting the same environment again records nothing, and a missing project is not found', async (t) => {
  given(created, ...counted(MAX_ENVIRONMENTS_PER_PROJECT - 1)).when(add(100)).then(t, [])
  given().when(add(50)).thenThrows(t, NotFound)
})
