import type { z } from 'zod'
import { QueryParseError, errorBody, type ErrorBody } from '../errors.js'

const inputText = (input: unknown): string => {
  if (input === undefined) return ''
  const text = typeof input === 'string' ? `'${input}'` : JSON.stringify(input) ?? String(input)
  const short = text.length > 60 ? `${text.slice(0, 57)}...` : text
  const type = input === null ? 'NoneType' : Array.isArray(input) ? 'list' : typeof input === 'object' ? 'dict' : typeof input === 'number' ? (Number.isInteger(input) ? 'int' : 'float') : typeof input === 'boolean' ? 'bool' : 'str'
  return ` [input_value=${short}, input_type=${type}]`
}

/**
 * A zod error written the way pydantic words a ValidationError: a count line naming the model,
 * then per issue the dotted path and the message. PostHog puts this text after
 * "JSON parse error - " in the 400 body.
 */
export const pydanticText = (error: z.ZodError, model: string): string => {
  const count = error.issues.length
  const lines = [`${count} validation error${count === 1 ? '' : 's'} for ${model}`]
  for (const issue of error.issues) {
    lines.push(issue.path.map(String).join('.') || '(root)')
    lines.push(`  ${issue.message}${inputText((issue as { input?: unknown }).input)}`)
  }
  return lines.join('\n')
}

/** A zod error of a query node as PostHog's 400 body (`invalid_request` / `parse_error`). */
export const validationErrorBody = (error: z.ZodError, model = 'QueryRequest'): ErrorBody => errorBody(new QueryParseError(pydanticText(error, model)))
