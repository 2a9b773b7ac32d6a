import type { Test } from 'tap'
import { memorySource } from '../../../src/insights/engine/memory-source.js'
import { runQuery } from '../../../src/insights/engine/run-query.js'
import { errorBody, QueryParseError, QueryRefused } from '../../../src/insights/errors.js'
import { parseQueryNode } from '../../../src/insights/schema/query-node.js'
import type { DomainError } from '../../../src/kernel/errors.js'
import { at } from './events.js'

/** The node fails validation: 400 `invalid_request`/`parse_error`, "JSON parse error - …" naming what failed. */
export const expectParseError = (t: Test, input: unknown, mentions: RegExp): void => {
  try {
    parseQueryNode(input)
    t.fail('the node was accepted')
  } catch (error) {
    t.ok(error instanceof QueryParseError)
    t.equal((error as DomainError).status, 400)
    t.match(errorBody(error as DomainError), { type: 'invalid_request', code: 'parse_error', attr: null, detail: /^JSON parse error - / })
    t.match(errorBody(error as DomainError).detail, mentions)
  }
}

/** The node validates but the engine refuses it: 400 `validation_error` in PostHog's body, naming the reason (and the field). */
export const expectRefusal = async (t: Test, node: unknown, mentions: RegExp, attr?: string): Promise<void> => {
  try {
    await runQuery(parseQueryNode(node), at('2024-02-01T00:00:00Z'), memorySource([]))
    t.fail('the query ran')
  } catch (error) {
    t.ok(error instanceof QueryRefused, String(error))
    const body = errorBody(error as DomainError)
    t.equal((error as DomainError).status, 400)
    t.same(Object.keys(body), ['type', 'code', 'detail', 'attr'])
    t.equal(body.type, 'validation_error')
    t.match(body.detail, mentions)
    if (attr !== undefined) t.equal(body.attr, attr)
  }
}
