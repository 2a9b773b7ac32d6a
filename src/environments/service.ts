import type { EventLog, JsonObject } from '../eventlog/port.js'
import { environmentStream, projectStream, type EnvironmentCreated, type ProjectEnvironmentAdded } from '../accounts/events.js'
import { completing, completionContext } from '../kernel/completing.js'
import { crashPoint } from '../kernel/crash-points.js'
import { NotFound } from '../kernel/errors.js'
import { handleCommand, readAggregate, type CommandContext } from '../kernel/handle-command.js'
import { randomToken, randomUuid } from '../kernel/ids.js'
import { allocateId } from '../kernel/sequence.js'
import type { Environment } from '../readstore/environment.js'
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
 * Writes the environment its project's count decided. Safe to run any number of times, at once
 * or after a restart: an environment is created once, and every run writes the same event id.
 */
export const completeEnvironmentCreate = (log: EventLog, data: EnvironmentCreated['data'], now = new Date().toISOString()) =>
  handleCommand(log, environmentDecider, environmentStream(data.environmentId), { type: 'CreateEnvironment', data },
    completionContext(data.createdBy, now, `environment-create-${data.environmentId}`))

/**
 * A new environment in an existing project, with a fresh `phc_` token that ingestion accepts at
 * once. The project's stream decides it, holding concurrent creations to the limits in one
 * place, and carries the environment, so a creation is never left counted but missing.
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
  const creating: EnvironmentCreated['data'] = {
    environmentId, uuid: randomUuid(), projectId, organizationId: String(project['organization_id']),
    name, apiToken: randomToken('phc_'), timezone: typeof settings['timezone'] === 'string' ? settings['timezone'] : 'UTC',
    createdBy: context.actor, at: context.now, settings,
  }
  const added = await handleCommand(deps.log, projectEnvironmentsDecider, projectStream(projectId), {
    type: 'AddEnvironment', environmentId, demo, known, at: context.now, creating,
  }, context)
  crashPoint('environment-create:counted')
  // A retry of a keyed request finds the count it made, with the environment it carried.
  const decided = added.replayed ? await countedCreation(deps.log, projectId, environmentId) ?? creating : creating
  const result = await completing(() => completeEnvironmentCreate(deps.log, decided, context.now))
  return settled(deps, environmentId, result.position)
}

/** The environment a project's count carries, as written. */
const countedCreation = async (log: EventLog, projectId: number, environmentId: number): Promise<EnvironmentCreated['data'] | null> => {
  const { events } = await readAggregate<ProjectEnvironmentAdded>(log, projectStream(projectId))
  for (const event of events) {
    if (event.type === 'ProjectEnvironmentAdded' && event.data.environmentId === environmentId) return event.data.creating ?? null
  }
  return null
}

export const changeEnvironment = async (
  deps: EnvironmentDeps, environment: Environment, command: EnvironmentCommand, context: CommandContext,
): Promise<Environment> => {
  const result = await handleCommand(deps.log, environmentDecider, environmentStream(environment.id), command, context)
  return settled(deps, environment.id, result.position)
}

export const newProjectToken = (): string => randomToken('phc_')
