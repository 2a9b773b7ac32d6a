import t from 'tap'
import type { Position, RecordedEvent } from '../../src/eventlog/port.js'
import type { CapturedEvent } from '../../src/ingestion/captured-event.js'
import { Feed, type FeedStep } from '../../src/insights/live/feed.js'
import { capture, CAPTURED_COLLECTIONS, event } from '../projections/support/captured.js'
import { world } from '../support/world.js'

const ENVIRONMENT = 3

/** What a step tells, without the rows' details. */
const told = (steps: readonly FeedStep[]) => steps.map((step) =>
  step.kind === 'event' ? `event ${step.event.event} ${new Date(step.event.timestamp).toISOString()}` : step.kind === 'merge' ? 'merge' : `replaced ${step.uuid}`)

t.test('the feed tells an event once per uuid, and tells when the copy stored now differs from the copy it told', async (t) => {
  const service = await world(t)
  const feed = new Feed(service.models)
  /** Captures one request, waits for the read models, and gives the feed that request's log event. */
  const send = async (events: CapturedEvent[]): Promise<FeedStep[]> => {
    const position: Position = await capture(service.log, ENVIRONMENT, events)
    t.ok(await service.models.waitFor(position, CAPTURED_COLLECTIONS, 10_000))
    let recorded: RecordedEvent | null = null
    for await (const one of service.log.readAll({ direction: 'backwards', maxCount: 1 })) recorded = one
    return feed.steps([recorded!])
  }
  const first = event('$pageview', 'ann', { timestamp: '2024-05-02T10:00:00.000Z', properties: { $browser: 'Firefox' } })
  t.same(told(await send([first])), ['event $pageview 2024-05-02T10:00:00.000Z'])
  t.same(told(await send([first])), [], 'a copy with the same content (a retried request) is told nothing')
  const later = { ...first, timestamp: '2024-04-28T10:00:00.000Z', now: '2024-04-28T10:00:00.000Z' }
  t.same(told(await send([later])), [`replaced ${first.uuid}`], 'a copy at another time replaced the one told')
  t.same(told(await send([later])), [], 'the copy stored now is the one the replacement was told of')
  const renamed = { ...later, event: 'signed_up' }
  t.same(told(await send([renamed, later])), [], 'two copies in one request: the last is stored, which is the one told')
  t.same(told(await send([{ ...later, properties: { $browser: 'Safari' } }])), [`replaced ${first.uuid}`], 'other properties replace it too')
  const other = event('$pageview', 'bob', { timestamp: '2024-05-03T10:00:00.000Z' })
  const changed = { ...other, event: 'purchased' }
  t.same(told(await send([other, changed])), ['event purchased 2024-05-03T10:00:00.000Z'], 'a new event sent twice in one request is told once, as stored')
  t.equal(feed.size, 2, 'two events told')
})
