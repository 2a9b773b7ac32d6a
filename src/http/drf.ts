import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { ownValue } from '../kernel/own-value.js'

const BOOLEAN_WORDS: Record<string, boolean> = {
  true: true, True: true, TRUE: true, '1': true, on: true, yes: true,
  false: false, False: false, FALSE: false, '0': false, off: false, no: false,
}

/** A boolean as Django REST framework reads one: JSON booleans, 0/1 and the usual words. */
export const drfBoolean = z.preprocess(
  (value) => (typeof value === 'string' ? ownValue(BOOLEAN_WORDS, value) ?? value : value === 1 ? true : value === 0 ? false : value),
  z.boolean({ error: 'Must be a valid boolean.' }),
)

/** An integer given as a number or a numeric string, as DRF's IntegerField accepts. */
export const drfInteger = z.preprocess(
  (value) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value),
  z.number({ error: 'A valid integer is required.' }).int({ error: 'A valid integer is required.' }),
)

/** A choice among integers; anything else is DRF's `invalid_choice`. */
export const integerChoice = <const T extends readonly [number, ...number[]]>(choices: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value),
    z.union(choices.map((choice) => z.literal(choice)) as unknown as [z.ZodLiteral<T[number]>, z.ZodLiteral<T[number]>]),
  )

/**
 * Options for a zod `refine` whose failure reads as DRF's: `code` on the wire, and `attr` where
 * PostHog names the field otherwise than the request's path to it.
 */
export const drfRefusal = (message: string, code = 'invalid_input', attr?: string) =>
  ({ error: message, params: { drfCode: code, ...(attr === undefined ? {} : { attr }) } })

/**
 * Validates with zod where the order of checks matters (permissions before fields), throwing the
 * ZodError marked as a body error so the one formatter words it like DRF.
 */
export const parseBody = <S extends z.ZodType>(schema: S, body: unknown): z.output<S> => {
  const result = schema.safeParse(body ?? {})
  if (result.success) return result.data
  throw Object.assign(result.error, { validationContext: 'body' })
}

/** PostHog's API also takes form-encoded bodies (`name=replaced`). */
export const useFormBodies = (app: FastifyInstance): void => {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))))
  })
}

/**
 * An empty body sent as `application/json` means no body, as Django reads it (a client library
 * that always sets the header sends one with `DELETE` and bodiless actions); a route that needs
 * fields still refuses their absence itself. Any other text is parsed by fastify's own JSON
 * parser, with its guards against prototype poisoning.
 */
export const useEmptyJsonBodies = (app: FastifyInstance): void => {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined)
    parseJson(request, String(body), done)
  })
}
