import type { z } from 'zod'
import { QueryParseError, errorBody, type ErrorBody } from '../errors.js'

const inputText = (input: unknown): string => {
  if (input === undefined) return ''
  const text = typeof input === 'string' ? `'${input}'` : JSON.stringify(input) ?? String(input)
  const short = text.length > 60 ? `${text.slice(0, 57)}...` : text
  const type = input === null ? 'NoneType' : Array.isArray(input) ? 'list' : typeof input === 'object' ? 'dict' : typeof input === 'number' ? (Number.isInteger(input) ? 'int' : 'float') : typeof input === 'boolean' ? 'bool' : 'str'
  return ` [input_value=${short}, input_type=${type}]`
}

type Issue = z.core.$ZodIssue

/**
 * A union's failure reads best as the failure of the branch that got furthest (the list of
 * filters rather than the AND/OR group, for a bad operator inside a list), so union issues are
 * replaced by that branch's own issues, their paths prefixed.
 */
const specificIssues = (issue: Issue): Issue[] => {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue]
  const depth = (issues: Issue[]) => Math.max(...issues.map((i) => i.path.length))
  const best = issue.errors.reduce((a, b) => (depth(b) > depth(a) ? b : a))
  if (depth(best) === 0 && best.every((i) => i.code === 'invalid_type')) return [issue]
  return best.flatMap((inner) => specificIssues({ ...inner, path: [...issue.path, ...inner.path] } as Issue))
}

/**
 * A zod error written the way pydantic words a ValidationError: a count line naming the model,
 * then per issue the dotted path and the message. PostHog puts this text after
 * "JSON parse error - " in the 400 body.
 */
export const pydanticText = (error: z.ZodError, model: string): string => {
  const issues = error.issues.flatMap(specificIssues)
  const count = issues.length
  const lines = [`${count} validation error${count === 1 ? '' : 's'} for ${model}`]
  for (const issue of issues) {
    lines.push(issue.path.map(String).join('.') || '(root)')
    lines.push(`  ${issue.message}${inputText((issue as { input?: unknown }).input)}`)
  }
  return lines.join('\n')
}

/** A zod error of a query node as PostHog's 400 body (`invalid_request` / `parse_error`). */
export const validationErrorBody = (error: z.ZodError, model = 'QueryRequest'): ErrorBody => errorBody(new QueryParseError(pydanticText(error, model)))
