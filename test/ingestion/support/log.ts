import type { EventLog, RecordedEvent } from '../../../src/eventlog/port.js'
import type { CapturedEvent, EventsCapturedData } from '../../../src/ingestion/captured-event.js'
import { collect } from '../../support/collect.js'

/** Every EventsCaptured log event in the log, in order. */
export const capturedRecords = async (log: EventLog): Promise<RecordedEvent[]> =>
  (await collect(log.readAll())).filter((e) => e.type === 'EventsCaptured')

/** Every analytics event captured in realtime, in log order. */
export const capturedEvents = async (log: EventLog): Promise<CapturedEvent[]> =>
  (await capturedRecords(log)).flatMap((e) => (e.data as EventsCapturedData).events)

/** How many events the log holds in all. */
export const logSize = async (log: EventLog): Promise<number> => (await collect(log.readAll())).length
