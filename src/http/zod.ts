import type { FastifyInstance, FastifyTypeProvider } from 'fastify'
import { z } from 'zod'
import { jsonWriter } from './json-writer.js'

/** Lets routes declare zod schemas and get typed `params`, `query` and `body`. */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown
}

/**
 * Validation runs the zod schema; a failure reaches the error handler as the ZodError itself,
 * with fastify's `validationContext` telling which part of the request it concerns. A response
 * schema is written by its compiled writer (`jsonWriter`); an answer without one by `JSON.stringify`.
 */
export const useZod = (app: FastifyInstance): void => {
  app.setValidatorCompiler<z.ZodType>(({ schema }) => (data) => {
    const result = schema.safeParse(data)
    return result.success ? { value: result.data } : { error: result.error }
  })
  app.setSerializerCompiler<z.ZodType>(({ schema }) => jsonWriter(schema))
}

/**
 * The query parameters a route reads, each an optional string (the query parser keeps the last of
 * a repeated parameter); parameters the route does not read pass through untouched.
 */
export const queryOf = <const Names extends readonly string[]>(...names: Names) =>
  z.looseObject(Object.fromEntries(names.map((name) => [name, z.string().optional()])) as { [K in Names[number]]: z.ZodOptional<z.ZodString> })

/** Path parameters of an environment-scoped route. */
export const ScopedParams = z.object({ project_id: z.string() })
export const ScopedIdParams = z.object({ project_id: z.string(), id: z.string() })
