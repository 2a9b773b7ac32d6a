import type { EventsCapturedData } from '../../../src/ingestion/captured-event.js'
import { capturedEvents } from '../../../src/ingestion/captured-projection.js'
import type { Projector } from '../../../src/readstore/projector.js'

export interface OrderDoc {
  [key: string]: unknown
  id: string
  count: number
  lastSeq: number
  outOfOrder: number
}

export interface BatchDoc {
  [key: string]: unknown
  id: string
  count: number
}

/** The tally's read models, by collection. */
export interface TallyDocuments {
  tally_order: OrderDoc
  tally_batches: BatchDoc
}

/**
 * A test projector of captured events: per environment, how many it saw and whether their
 * `properties.seq` came in exactly ascending order; per `properties.batch`, how many it saw.
 */
export const tally: Projector = {
  name: 'tally',
  version: 1,
  collections: ['tally_order', 'tally_batches'],
  handles: capturedEvents.handles,
  expand: capturedEvents.expand,
  apply(view, event) {
    const { environmentId, events } = event.data as EventsCapturedData
    const id = String(environmentId)
    const before = view.get<OrderDoc>('tally_order', id) ?? { id, count: 0, lastSeq: -1, outOfOrder: 0 }
    let { lastSeq, outOfOrder } = before
    const perBatch = new Map<string, number>()
    for (const captured of events) {
      const seq = captured.properties['seq']
      if (typeof seq === 'number') {
        if (seq !== lastSeq + 1) outOfOrder++
        lastSeq = seq
      }
      const batch = captured.properties['batch']
      if (typeof batch === 'string') perBatch.set(batch, (perBatch.get(batch) ?? 0) + 1)
    }
    view.put('tally_order', id, { id, count: before.count + events.length, lastSeq, outOfOrder })
    for (const [batch, n] of perBatch) {
      const doc = view.get<BatchDoc>('tally_batches', batch)
      view.put('tally_batches', batch, { id: batch, count: (doc?.count ?? 0) + n })
    }
  },
}
