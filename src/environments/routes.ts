import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { JsonObject } from '../eventlog/port.js'
import { principalOf } from '../auth/authenticate.js'
import { checkKeyReachesEnvironment, checkKeyReachesOrganization } from '../auth/key-reach.js'
import { actorOf, commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { environmentOf } from '../http/environment-scope.js'
import type { Environment } from '../readstore/environment.js'
import { pageOf, paginated } from '../http/pagination.js'
import { NotFound, PermissionDenied, ValidationFailed } from '../kernel/errors.js'
import { ADMIN } from '../dashboards/permissions.js'
import { environmentBasic, environmentDetail } from './serialize.js'
import { environmentStream } from '../accounts/events.js'
import { stateAsOf } from '../eventlog/as-of.js'
import { AsOfQuery, cutoffAt } from '../http/as-of.js'
import { z } from 'zod'
import type { ZodTypeProvider } from '../http/zod.js'
import { evolveEnvironmentDocument } from './document.js'
import { changeEnvironment, createEnvironment, newProjectToken, type EnvironmentDeps } from './service.js'
import { createEnvironmentBody, settingsOf, updateEnvironmentBody } from './settings.js'

const READ = { scopes: ['project:read'] }
const NO_ACCESS = "You don't have access to the project."
const WRITE = { scopes: ['project:write'] }

const ProjectOnly = z.object({ project_id: z.string() })
const ProjectAndEnvironment = z.object({ project_id: z.string(), environment_id: z.string() })
const ProjectParams = z.looseObject({ project_id: z.string().optional(), environment_id: z.string().optional() })

/** A path parameter of these routes, or '' when the route has none by that name. */
const paramOf = (request: FastifyRequest, name: 'project_id' | 'environment_id'): string => {
  const parsed = ProjectParams.safeParse(request.params)
  return (parsed.success ? parsed.data[name] : undefined) ?? ''
}

/** The project a route names, in the caller's organization. */
const projectOf = async (request: FastifyRequest, deps: EnvironmentDeps, foreign: () => Error): Promise<JsonObject> => {
  const principal = principalOf(request)
  const { user } = principal
  const raw = paramOf(request, 'project_id')
  const reach = (project: JsonObject) => checkKeyReachesEnvironment(principal, { id: Number(project['id']), organization: String(project['organization_id']) })
  if (raw === '@current') {
    const [first] = await deps.models.find('projects', { where: { organization_id: user.organization_id }, orderBy: [['id', 'asc']], limit: 1 })
    if (!first) throw new NotFound('Project not found.')
    reach(first)
    return first
  }
  if (!/^\d+$/.test(raw)) throw new NotFound('Project not found.')
  const project = await deps.models.get('projects', String(Number(raw)))
  if (!project) throw new NotFound('Project not found.')
  reach(project)
  if (project['organization_id'] !== user.organization_id) throw foreign()
  return project
}

/** Environment detail routes hide other organizations' environments behind a plain 404. */
const visibleEnvironment = async (request: FastifyRequest, deps: EnvironmentDeps): Promise<Environment> => {
  try {
    return await environmentOf(request, deps.models)
  } catch (error) {
    if (error instanceof PermissionDenied && error.message === NO_ACCESS) throw new NotFound()
    throw error
  }
}

const environmentInProject = async (request: FastifyRequest, deps: EnvironmentDeps): Promise<Environment> => {
  const project = await projectOf(request, deps, () => new PermissionDenied("You don't have access to the project."))
  const raw = paramOf(request, 'environment_id')
  const environment = /^\d+$/.test(raw) ? await deps.models.get('environments', String(Number(raw))) : null
  if (!environment || environment.project_id !== Number(project['id'])) throw new NotFound()
  checkKeyReachesEnvironment(principalOf(request), environment)
  return environment
}

/** The environment exactly as it stood at `asOf`, folded from its own stream; 404 before it existed. */
const environmentAsOf = async (deps: EnvironmentDeps, environment: Environment, asOf: string): Promise<Environment> => {
  const past = await stateAsOf(deps.log, environmentStream(environment.id), evolveEnvironmentDocument, null, cutoffAt(asOf))
  if (!past) throw new NotFound()
  return past as Environment
}

const listed = async (request: FastifyRequest, deps: EnvironmentDeps, where: Record<string, string | number>) => {
  const page = pageOf(request.query)
  const all = await deps.models.find('environments', { where, orderBy: [['id', 'asc']] })
  return paginated(request, page, all.length, all.slice(page.offset, page.offset + page.limit).map(environmentBasic))
}

/** Projects and their environments (PostHog's teams). */
export const environmentRoutes: FastifyPluginAsync<EnvironmentDeps> = async (app, deps) => {
  useFormBodies(app)
  const detail = (request: FastifyRequest, environment: Environment) => environmentDetail(environment, actorOf(request).level)

  const update = async (request: FastifyRequest, environment: Environment) => {
    const body = parseBody(updateEnvironmentBody, request.body)
    const updated = await changeEnvironment(deps, environment, {
      type: 'UpdateEnvironment', name: body.name, settings: settingsOf(body), at: new Date().toISOString(),
    }, commandContext(request))
    return detail(request, updated)
  }

  app.get('/api/projects/', { config: READ }, async (request) => {
    const principal = principalOf(request)
    const { user } = principal
    // Organization-scoped keys see only their organizations' projects, as PostHog filters them.
    const reachable = principal.scopedOrganizations === null || principal.scopedOrganizations.includes(user.organization_id)
    const page = pageOf(request.query)
    const projects = reachable ? await deps.models.find('projects', { where: { organization_id: user.organization_id }, orderBy: [['id', 'asc']] }) : []
    const results = []
    for (const project of projects.slice(page.offset, page.offset + page.limit)) {
      const primary = await deps.models.get('environments', String(project['id']))
      if (primary) results.push({ ...environmentBasic(primary), name: project['name'] })
    }
    return paginated(request, page, projects.length, results)
  })

  app.get('/api/projects/:project_id/', { config: READ, schema: { params: ProjectOnly } }, async (request) => {
    const project = await projectOf(request, deps, () => new PermissionDenied("You don't have access to the project."))
    const primary = await deps.models.get('environments', String(project['id']))
    if (!primary) throw new NotFound('Project not found.')
    return { ...detail(request, primary), name: project['name'] }
  })

  app.get('/api/projects/:project_id/environments/', { config: READ, schema: { params: ProjectOnly } }, async (request) => {
    const project = await projectOf(request, deps, () => new PermissionDenied("You don't have access to the project."))
    return listed(request, deps, { project_id: Number(project['id']) })
  })

  app.post('/api/projects/:project_id/environments/', { config: WRITE, schema: { params: ProjectOnly } }, async (request, reply) => {
    const project = await projectOf(request, deps, () => new NotFound('Organization not found.'))
    const body = parseBody(createEnvironmentBody, request.body)
    if (actorOf(request).level < ADMIN && body.is_demo !== true) throw new PermissionDenied('Your organization access level is insufficient.')
    if (body.primary_dashboard !== undefined && body.primary_dashboard !== null) {
      throw new ValidationFailed('Primary dashboard cannot be set on project creation.', 'primary_dashboard')
    }
    const environment = await createEnvironment(deps, project, body.name ?? 'Default project', settingsOf(body), commandContext(request))
    return reply.status(201).send(detail(request, environment))
  })

  app.withTypeProvider<ZodTypeProvider>().get('/api/projects/:project_id/environments/:environment_id/', {
    config: READ, schema: { querystring: AsOfQuery },
  }, async (request) => {
    const environment = await environmentInProject(request, deps)
    return detail(request, request.query.as_of === undefined ? environment : await environmentAsOf(deps, environment, request.query.as_of))
  })
  app.patch('/api/projects/:project_id/environments/:environment_id/', { config: WRITE, schema: { params: ProjectAndEnvironment } }, async (request) =>
    update(request, await environmentInProject(request, deps)))

  app.get('/api/environments/', { config: READ }, async (request) => {
    const principal = principalOf(request)
    checkKeyReachesOrganization(principal, principal.user.organization_id)
    return listed(request, deps, { organization: principal.user.organization_id })
  })
  app.post('/api/environments/', { config: WRITE }, async () => {
    throw new ValidationFailed('Environments must be created under a specific project. Send the POST request to /api/projects/<project_id>/environments/ instead.')
  })
  app.withTypeProvider<ZodTypeProvider>().get('/api/environments/:project_id/', {
    config: READ, schema: { querystring: AsOfQuery },
  }, async (request) => {
    const environment = await visibleEnvironment(request, deps)
    return detail(request, request.query.as_of === undefined ? environment : await environmentAsOf(deps, environment, request.query.as_of))
  })
  app.patch('/api/environments/:project_id/', { config: WRITE, schema: { params: ProjectOnly } }, async (request) => update(request, await visibleEnvironment(request, deps)))

  app.patch('/api/environments/:project_id/reset_token/', { config: WRITE, schema: { params: ProjectOnly } }, async (request) => {
    const environment = await visibleEnvironment(request, deps)
    if (actorOf(request).level < ADMIN) throw new PermissionDenied('Your organization access level is insufficient.')
    const updated = await changeEnvironment(deps, environment, { type: 'ResetToken', apiToken: newProjectToken(), at: new Date().toISOString() }, commandContext(request))
    return detail(request, updated)
  })
}
