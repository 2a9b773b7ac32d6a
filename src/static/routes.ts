import type { FastifyPluginAsync } from 'fastify'
import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { z } from 'zod'
import type { ZodTypeProvider } from '../http/zod.js'
import { NotFound } from '../kernel/errors.js'

const require = createRequire(import.meta.url)
const packageJson = require.resolve('posthog-js/package.json')

/** The posthog-js release whose scripts `/static/` serves: the one this project depends on. */
export const POSTHOG_JS_VERSION: string = (require('posthog-js/package.json') as { version: string }).version
const DIST = join(dirname(packageJson), 'dist')

const Params = z.object({ file: z.string().max(200) })
const VersionedParams = z.object({ version: z.string().max(100), file: z.string().max(200) })

/**
 * posthog-js's scripts as PostHog's CDN serves them: `array.js` for the snippet, and the
 * extensions it loads lazily (`/static/{name}.js?v=…`, or `/static/{version}/{name}.js` with
 * strict script versioning). Only files of the package's `dist` folder are served, read once
 * each and kept in memory. Whatever version a page asks for, it gets the installed one.
 */
export const staticRoutes: FastifyPluginAsync = async (plain) => {
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const available = new Set((await readdir(DIST)).filter((name) => name.endsWith('.js')))
  const loaded = new Map<string, Promise<Buffer>>()
  const load = (file: string): Promise<Buffer> => {
    if (!available.has(file)) throw new NotFound()
    let content = loaded.get(file)
    if (!content) {
      content = readFile(join(DIST, file))
      loaded.set(file, content)
    }
    return content
  }
  const headers = {
    'content-type': 'application/javascript; charset=utf-8',
    'cache-control': 'public, max-age=3600',
    'x-posthog-js-version': POSTHOG_JS_VERSION,
  }

  app.get('/static/:file', { schema: { params: Params } }, async (request, reply) =>
    reply.headers(headers).send(await load(request.params.file)))
  app.get('/static/:version/:file', { schema: { params: VersionedParams } }, async (request, reply) =>
    reply.headers(headers).send(await load(request.params.file)))
}
