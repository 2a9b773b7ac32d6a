import { compileFlags } from '../../../src/decide/compile.js'
import type { FlagDefinition, FlagDefinitionSet } from '../../../src/decide/definitions.js'
import { evaluateFlags, type EvaluationInput } from '../../../src/decide/evaluate.js'
import type { EvaluationResult, FlagEvaluation } from '../../../src/decide/results.js'
import { NOW } from './match.js'

export type Request = Partial<Omit<EvaluationInput, 'definitions'>>

/** Compiles the definitions and evaluates one request against them. */
export const evaluate = (definitions: FlagDefinitionSet | FlagDefinition[], request: Request = {}): EvaluationResult =>
  evaluateFlags({
    definitions: compileFlags(Array.isArray(definitions) ? { flags: definitions } : definitions),
    distinctId: 'user-1',
    now: NOW,
    ...request,
  })

/** One flag's evaluation from a result. */
export const pick = (result: EvaluationResult, key: string): FlagEvaluation => {
  const found = result.flags.find((flag) => flag.key === key)
  if (!found) throw new Error(`flag ${key} was not evaluated`)
  return found
}
