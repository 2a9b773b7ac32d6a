import { createInterface } from 'node:readline'
import { openFloor, type Range } from './query-floor-work.js'

/** One request on stdin. */
export type FloorRequest =
  | { readonly query: 'dailyPeople'; readonly environmentId: number; readonly event: string; readonly property: string; readonly range: Range }
  | { readonly query: 'funnel'; readonly environmentId: number; readonly steps: readonly string[]; readonly windowMs: number; readonly range: Range }

/**
 * `node query-floor.js <data dir>`: answers the bench's queries from the store's files (see
 * `openFloor`), one JSON request a line on stdin, one `{"ms": …, "result": …}` line each on stdout,
 * timed from the request to its result, until stdin ends. The files stay open between requests,
 * as a service keeps them.
 */
const [dataDir] = process.argv.slice(2)
if (dataDir === undefined) throw new Error('usage: query-floor <data dir>')
const floor = openFloor(dataDir)
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line) as FloorRequest
  const started = performance.now()
  const result = request.query === 'dailyPeople'
    ? floor.dailyPeople(request.environmentId, request.event, request.property, request.range)
    : floor.funnel(request.environmentId, request.steps, request.windowMs, request.range)
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, result })}\n`)
}
floor.close()
