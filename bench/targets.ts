import type { Figure, Target } from './figures.js'

/** A figure the project has a target for, before it is measured. */
export interface Expected {
  readonly name: string
  readonly unit: string
  readonly target: Target
}

const atLeast = (name: string, unit: string, bound: number): Expected => ({ name, unit, target: { atLeast: bound } })
const atMost = (name: string, unit: string, bound: number): Expected => ({ name, unit, target: { atMost: bound } })
const equalDigest = (model: string): Expected => ({ name: `rebuild digest of ${model} equals the live build`, unit: '', target: { atLeast: 1, display: 'equal' } })

/** The targets of the speed work (2-core machine, embedded mode, ratios to a bare route in the same run). */
export const TARGETS = {
  captureIngest: atLeast('/capture/ single event, serve --roles ingest', '% of bare POST', 60),
  captureBelowCeiling: atMost('/capture/ single event, serve --roles ingest: points below the durable-capture ceiling', 'points', 10),
  captureDefault: atLeast('/capture/ single event, default serve', '% of bare POST', 40),
  batchIngest: atLeast('/batch/ of 100 events, serve --roles ingest', 'events/s', 100_000),
  batchDefault: (seconds: number) => atLeast(`/batch/ of 100 events, default serve, over ${seconds} s`, 'events/s', 40_000),
  overloadFailures: (seconds: number) => atMost(`/batch/ offered at 2 × its sustainable rate for ${seconds} s, default serve: answers 408 or 5xx other than 503 with Retry-After, or none`, 'requests', 0),
  overloadAcceptedP99: atMost('/batch/ at 2 × its sustainable rate: p99 of the accepted requests', 'ms', 1000),
  overloadKept: { name: '/batch/ at 2 × its sustainable rate: every acknowledged event readable after the load', unit: '', target: { atLeast: 1, display: 'equal' } } as Expected,
  readable: (model: string) => atMost(`ack → ${model} readable through the API, p99, under that load`, 'ms', 1000),
  readableAtEighty: (model: string) => atMost(`ack → ${model} readable through the API, p99, /batch/ at 80 % of its sustainable rate`, 'ms', 1000),
  rebuild: (events: number) => atLeast(`rebuild of every projection over ${events.toLocaleString('en-US')} captured events`, 'events/s', 60_000),
  digest: equalDigest,
  decide: atLeast('/decide?v=3, 50 flags, 20 person properties', '% of bare POST', 40),
  decideP99: atMost('/decide?v=3 p99 at ¼ of the bare rate, open loop', 'ms', 5),
  dashboard: atLeast('GET a 10-tile dashboard', '% of bare GET, same document', 40),
  persons: atLeast('GET …/persons/?distinct_id=', '% of bare GET, same document', 30),
  subscriptions: atLeast('GET the 25-subscription list', '% of bare GET, same document', 30),
  liveDashboard: atLeast('GET a dashboard of 10 live insight tiles over the history', '% of bare GET, same document', 40),
  liveReadable: atMost('ack → a live insight counts the event, p99, 50 live insights, /batch/ at 16,000 events/s', 'ms', 1000),
  decideUnderRebuild: atMost('/decide p99 during a full rebuild, default serve', '× idle p99', 2),
  dashboardUnderRebuild: atMost('GET dashboard p99 during a full rebuild, default serve', '× idle p99', 2),
  trendsQuery: (events: number) => atMost(`trends, dau by day and $browser, 30 days of ${events.toLocaleString('en-US')} events`, '× the store alone', 2),
  funnelQuery: (events: number) => atMost(`funnel, 3 steps in 14 days, 30 days of ${events.toLocaleString('en-US')} events`, '× the store alone', 2),
  trendsQueryUnderIngestion: (rate: number) => atMost(`the trends query while /batch/ takes ${rate.toLocaleString('en-US')} events/s`, '× the store alone', 2),
  funnelQueryUnderIngestion: (rate: number) => atMost(`the funnel query while /batch/ takes ${rate.toLocaleString('en-US')} events/s`, '× the store alone', 2),
} as const

/** The figure for a measured expectation. */
export const measured = (expected: Expected, value: number, note?: string): Figure => ({
  ...expected, value, ...(note !== undefined ? { note } : {}),
})

/** A yes/no figure: 1 when `ok`. */
export const verdict = (expected: Expected, ok: boolean, note?: string): Figure => ({
  ...measured(expected, ok ? 1 : 0, note), display: ok ? 'equal' : 'DIFFERS',
})
