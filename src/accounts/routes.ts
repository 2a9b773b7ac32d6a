import type { FastifyPluginAsync } from 'fastify'
import type { ReadModels } from '../readstore/read-models.js'
import { principalOf } from '../auth/authenticate.js'
import { basicUser } from './users.js'

export interface AccountRouteDeps {
  readonly models: ReadModels
}

/** `GET /api/users/@me/`: who the key belongs to, with its organization and projects. */
export const accountRoutes: FastifyPluginAsync<AccountRouteDeps> = async (app, { models }) => {
  app.get('/api/users/@me/', { config: { scopes: ['user:read'] } }, async (request) => {
    const { user, scopes } = principalOf(request)
    const organization = await models.get('organizations', user.organization_id)
    const projects = await models.find('projects', { where: { organization_id: user.organization_id }, orderBy: [['id', 'asc']] })
    return {
      ...basicUser(user),
      date_joined: user['date_joined'],
      organization: organization && { id: organization['id'], name: organization['name'] },
      projects: projects.map((p) => ({ id: p['id'], name: p['name'] })),
      scopes,
    }
  })
}
