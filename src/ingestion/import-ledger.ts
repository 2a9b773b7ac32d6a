import { StreamNotFound } from '../eventlog/errors.js'
import type { EventLog } from '../eventlog/port.js'
import { IMPORT_COMMITTED, importLogStream, type ImportCommittedData } from './import-events.js'

/** The part of a batch id that names its content: `hedgelog import` names batches `<key>_<ULID>`. */
export const batchKey = (batchId: string): string => batchId.split('_')[0]!

/**
 * What an environment's import ledger has committed, by batch key, read forward as it grows.
 * Appending a commit at `head` (the exact revision read) fails if anything was committed since,
 * so a commit made only when `has` answered false is the key's only one.
 */
export class ImportLedger {
  readonly #keys = new Set<string>()
  #head: bigint | 'no_stream' = 'no_stream'

  constructor(readonly environmentId: number) {}

  get head(): bigint | 'no_stream' {
    return this.#head
  }

  has(key: string): boolean {
    return this.#keys.has(key)
  }

  /** Reads the commits appended since the last read. */
  async refresh(log: EventLog): Promise<void> {
    const from = this.#head === 'no_stream' ? 0n : this.#head + 1n
    try {
      for await (const event of log.readStream(importLogStream(this.environmentId), { fromRevision: from })) {
        if (event.type === IMPORT_COMMITTED) this.#keys.add(batchKey(String((event.data as ImportCommittedData).batchId)))
        this.#head = event.revision
      }
    } catch (error) {
      if (!(error instanceof StreamNotFound)) throw error
    }
  }
}
