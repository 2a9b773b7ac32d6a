import type { EnvironmentCreated, EnvironmentTokenReset, EnvironmentUpdated, EnvironmentWebhookSecretIssued } from '../accounts/events.js'
import { canonicalJson } from '../kernel/canonical-json.js'
import { NotFound, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'

export type EnvironmentEvent = EnvironmentCreated | EnvironmentUpdated | EnvironmentTokenReset | EnvironmentWebhookSecretIssued

export type EnvironmentState =
  | { status: 'missing' }
  | { status: 'created'; data: EnvironmentCreated['data']; name: string; apiToken: string; settings: Record<string, unknown>; webhookSecret?: string }

export type EnvironmentCommand =
  | { type: 'CreateEnvironment'; data: EnvironmentCreated['data'] }
  | { type: 'UpdateEnvironment'; name: string | undefined; settings: Record<string, unknown>; at: string }
  | { type: 'ResetToken'; apiToken: string; at: string }
  /** Issues `secret` unless the environment has one already. */
  | { type: 'IssueWebhookSecret'; secret: string; at: string }

/**
 * An environment (PostHog's team): created once (so `hedgelog init` can run again), then renamed,
 * reconfigured, or given a fresh project token.
 */
export const environmentDecider: Decider<EnvironmentState, EnvironmentCommand, EnvironmentEvent> = {
  initialState: () => ({ status: 'missing' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'EnvironmentCreated':
        return { status: 'created', data: event.data, name: event.data.name, apiToken: event.data.apiToken, settings: event.data.settings ?? {} }
      case 'EnvironmentUpdated':
        if (state.status === 'missing') return state
        return { ...state, name: event.data.name ?? state.name, settings: { ...state.settings, ...event.data.settings } }
      case 'EnvironmentTokenReset':
        return state.status === 'missing' ? state : { ...state, apiToken: event.data.apiToken }
      case 'EnvironmentWebhookSecretIssued':
        return state.status === 'missing' ? state : { ...state, webhookSecret: event.data.secret }
      default:
        return assertNever(event)
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateEnvironment':
        return state.status === 'missing' ? [{ type: 'EnvironmentCreated', data: command.data }] : []
      case 'UpdateEnvironment': {
        if (state.status === 'missing') throw new NotFound()
        const settings = Object.fromEntries(Object.entries(command.settings)
          .filter(([key, value]) => canonicalJson(state.settings[key] ?? state.data.settings?.[key]) !== canonicalJson(value)))
        const renamed = command.name !== undefined && command.name !== state.name
        if (!renamed && Object.keys(settings).length === 0) return []
        return [{
          type: 'EnvironmentUpdated',
          data: { environmentId: state.data.environmentId, ...(renamed ? { name: command.name! } : {}), settings, at: command.at },
        }]
      }
      case 'ResetToken':
        if (state.status === 'missing') throw new NotFound()
        return [{ type: 'EnvironmentTokenReset', data: { environmentId: state.data.environmentId, apiToken: command.apiToken, at: command.at } }]
      case 'IssueWebhookSecret':
        if (state.status === 'missing') throw new NotFound()
        if (state.webhookSecret !== undefined) return []
        return [{ type: 'EnvironmentWebhookSecretIssued', data: { environmentId: state.data.environmentId, secret: command.secret, at: command.at } }]
      default:
        return assertNever(command)
    }
  },
}
