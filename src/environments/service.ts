import type { EventLog, JsonObject } from '../eventlog/port.js'
import { environmentStream, projectStream } from '../accounts/events.js'
import { NotFound } from '../kernel/errors.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { randomToken, randomUuid } from '../kernel/ids.js'
import { allocateId } from '../kernel/sequence.js'
import type { Environment } from '../http/environment-scope.js'
import type { ReadModels } from '../readstore/read-models.js'
import { environmentDecider, type EnvironmentCommand } from './decider.js'
import { checkEnvironmentLimit, type CountedEnvironment } from './limits.js'
import { projectEnvironmentsDecider } from './project-decider.js'

export interface EnvironmentDeps {
  readonly log: EventLog
  readonly models: ReadModels
}

const settled = async (deps: EnvironmentDeps, id: number, position: Parameters<ReadModels['waitFor']>[0] | null): Promise<Environment> => {
  const environment = await deps.models.settled(position, 'environments', String(id))
  if (!environment) throw new NotFound()
  return environment
}

/** The organization's environments as the limits count them, read without their settings. */
const countedEnvironments = async (models: ReadModels, organizationId: string): Promise<CountedEnvironment[]> => {
  const rows = await models.find('environments', {
    where: { organization: organizationId }, fields: ['id', 'project_id', 'settings.is_demo'],
  }) as (Environment & { settings?: { is_demo?: unknown } })[]
  return rows.map((row) => ({ id: row.id, projectId: row.project_id, demo: row.settings?.is_demo === true }))
}

/**
 * A new environment in an existing project, with a fresh `phc_` token that ingestion accepts at
 * once. The project's stream counts it first, so the limits hold under concurrent requests.
 */
export const createEnvironment = async (
  deps: EnvironmentDeps, project: JsonObject, name: string, settings: JsonObject, context: CommandContext,
): Promise<Environment> => {
  const projectId = Number(project['id'])
  const demo = settings['is_demo'] === true
  const known = await countedEnvironments(deps.models, String(project['organization_id']))
  // Refused before an id is taken when the read model already shows the project full.
  checkEnvironmentLimit(known, projectId, demo)
  const environmentId = await allocateId(deps.log, 'environment', context)
  await handleCommand(deps.log, projectEnvironmentsDecider, projectStream(projectId), { type: 'AddEnvironment', environmentId, demo, known, at: context.now }, context)
  const result = await handleCommand(deps.log, environmentDecider, environmentStream(environmentId), {
    type: 'CreateEnvironment',
    data: {
      environmentId, uuid: randomUuid(), projectId, organizationId: String(project['organization_id']),
      name, apiToken: randomToken('phc_'), timezone: typeof settings['timezone'] === 'string' ? settings['timezone'] : 'UTC',
      createdBy: context.actor, at: context.now, settings,
    },
  }, context)
  return settled(deps, environmentId, result.position)
}

export const changeEnvironment = async (
  deps: EnvironmentDeps, environment: Environment, command: EnvironmentCommand, context: CommandContext,
): Promise<Environment> => {
  const result = await handleCommand(deps.log, environmentDecider, environmentStream(environment.id), command, context)
  return settled(deps, environment.id, result.position)
}

export const newProjectToken = (): string => randomToken('phc_')
