import { NotFound, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import type { PersonalApiKeyCreated, PersonalApiKeyRevoked, ProjectCreated, UserCreated } from './events.js'

type Created<E extends { data: unknown }> = { status: 'missing' } | { status: 'created'; data: E['data'] }

/**
 * Users and projects are only created so far; creating one that exists records nothing, which
 * makes `hedgelog init` and `hedgelog orgs create` safe to run again after a crash.
 */
const createOnce = <E extends { type: string; data: Record<string, unknown> }>(type: E['type']): Decider<Created<E>, { data: E['data'] }, E> => ({
  initialState: () => ({ status: 'missing' }),
  evolve: (state, event) => (event.type === type ? { status: 'created', data: event.data } : state),
  decide: (command, state) => (state.status === 'missing' ? [{ type, data: command.data } as E] : []),
})

export const userDecider = createOnce<UserCreated>('UserCreated')
export const projectDecider = createOnce<ProjectCreated>('ProjectCreated')

export type ApiKey =
  | { status: 'missing' }
  | { status: 'active'; userUuid: string }
  | { status: 'revoked'; userUuid: string }

export type ApiKeyCommand =
  | { type: 'CreateApiKey'; data: PersonalApiKeyCreated['data'] }
  | { type: 'RevokeApiKey'; data: PersonalApiKeyRevoked['data'] }

export type ApiKeyEvent = PersonalApiKeyCreated | PersonalApiKeyRevoked

export const apiKeyDecider: Decider<ApiKey, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'missing' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'PersonalApiKeyCreated': return { status: 'active', userUuid: event.data.userUuid }
      case 'PersonalApiKeyRevoked': return state.status === 'missing' ? state : { status: 'revoked', userUuid: state.userUuid }
      default: return assertNever(event)
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateApiKey':
        return state.status === 'missing' ? [{ type: 'PersonalApiKeyCreated', data: command.data }] : []
      case 'RevokeApiKey':
        if (state.status === 'missing') throw new NotFound('Personal API key not found.')
        return state.status === 'active' ? [{ type: 'PersonalApiKeyRevoked', data: command.data }] : []
      default:
        return assertNever(command)
    }
  },
}
