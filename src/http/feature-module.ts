import type { FastifyPluginAsync, FastifyPluginOptions } from 'fastify'
import type { AuditedResource } from '../readstore/audited-resource.js'
import type { Projector } from '../readstore/projector.js'

/**
 * What a feature folder gives the service, declared once in its `module.ts`: the read models it
 * builds, the resources whose history it audits, and its routes by the role that serves them.
 * The composition root builds the projector list, the projection threads' shares, the audited
 * resources and the HTTP app from the list of modules (`src/modules.ts`); each feature's read
 * model collections are typed beside its documents (`declare module` of `ReadModelDocuments`).
 *
 * `Deps` is what the feature's routes need of the service; the root passes everything it has.
 */
export interface FeatureModule<Deps extends FastifyPluginOptions = Record<never, never>> {
  /** The feature's name, as its folder is named. */
  readonly name: string
  /** The types of the events it appends, each described in the event catalogue (`docs/events.md`). */
  readonly eventTypes?: readonly string[]
  /** The projectors that build its read models, in the order they are started. */
  readonly projectors?: readonly Projector[]
  /** Its aggregates whose whole history is a stream of their own. */
  readonly audited?: readonly AuditedResource[]
  /**
   * Its routes, loaded when the app is built: the projection threads import every module for
   * its projectors, and loading all routes there too costs each thread about 200 ms and 5 MB
   * of heap for nothing.
   */
  readonly routes?: () => Promise<ModuleRoutes<Deps>>
}

/** A feature's route plugins, by the role that serves them. */
export interface ModuleRoutes<Deps extends FastifyPluginOptions> {
  /** Management routes outside any environment: `/api/users/`, `/api/organizations/…`. */
  readonly api?: readonly FastifyPluginAsync<Deps>[]
  /** Management routes of one environment, served under `/api/environments/:project_id` and `/api/projects/:project_id`. */
  readonly environment?: readonly FastifyPluginAsync<Deps>[]
  /** Public routes of the ingestion role: capture, decide, remote config, SDK files. */
  readonly ingest?: readonly FastifyPluginAsync<Deps>[]
}
