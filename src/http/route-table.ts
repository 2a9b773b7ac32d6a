import type { FastifyInstance } from 'fastify'

/** One registered route: its method, its full path as registered, and the scopes it demands (none: public). */
export interface RouteEntry {
  readonly method: string
  readonly url: string
  readonly scopes: readonly string[] | undefined
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>()

/** Records every route registered on the app from now on, in every plugin, one entry per method. */
export const recordRoutes = (app: FastifyInstance): void => {
  const table: RouteEntry[] = []
  tables.set(app, table)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) table.push({ method, url: route.url, scopes: route.config?.scopes })
  })
}

/** The routes the app serves, as recorded while it was built. */
export const routeTable = (app: FastifyInstance): readonly RouteEntry[] => tables.get(app) ?? []
