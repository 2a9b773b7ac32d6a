import type { EnvironmentCreated, ProjectCreated, ProjectEnvironmentAdded } from '../accounts/events.js'
import { NotFound, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import { checkEnvironmentLimit, type CountedEnvironment } from './limits.js'

export type ProjectEvent = ProjectCreated | ProjectEnvironmentAdded

export type ProjectState =
  | { status: 'missing' }
  | { status: 'created'; projectId: number; environments: CountedEnvironment[] }

/**
 * `known` are the organization's environments as the read model lists them, which covers the ones
 * created before their projects counted them (the first of each project, and older ones).
 */
export interface AddEnvironment {
  readonly type: 'AddEnvironment'
  readonly environmentId: number
  readonly demo: boolean
  readonly known: readonly CountedEnvironment[]
  readonly at: string
  readonly creating?: EnvironmentCreated['data']
}

/** A project's stream as the environment limits read it: each environment it counted. */
export const projectEnvironmentsDecider: Decider<ProjectState, AddEnvironment, ProjectEvent> = {
  initialState: () => ({ status: 'missing' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'ProjectCreated':
        return { status: 'created', projectId: event.data.projectId, environments: [] }
      case 'ProjectEnvironmentAdded': {
        if (state.status === 'missing') return state
        const { environmentId: id, projectId, demo } = event.data
        return { ...state, environments: [...state.environments, { id, projectId, demo }] }
      }
      default:
        return assertNever(event)
    }
  },
  decide: (command, state) => {
    if (state.status === 'missing') throw new NotFound('Project not found.')
    const counted = new Map(command.known.map((environment) => [environment.id, environment]))
    if (state.environments.some((environment) => environment.id === command.environmentId)) return []
    for (const environment of state.environments) counted.set(environment.id, environment)
    checkEnvironmentLimit([...counted.values()], state.projectId, command.demo)
    const { environmentId, demo, at, creating } = command
    return [{ type: 'ProjectEnvironmentAdded', data: { projectId: state.projectId, environmentId, demo, at, ...(creating ? { creating } : {}) } }]
  },
}
