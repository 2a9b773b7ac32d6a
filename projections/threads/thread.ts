import { parentPort, workerData } from 'node:worker_threads'
import { positionToString } from '../../src/eventlog/port.js'
import { openStoresLazily } from '../../src/storage.js'
import { waitForStores } from '../../src/store-wait.js'
import { isTransientStoreError } from '../../src/kernel/storage-errors.js'
import { lowerThreadPriority } from '../../src/kernel/thread-priority.js'
import { allProjectors } from '../../src/modules.js'
import { ProjectionSet } from '../projection-set.js'
import { ProjectionRegistry } from '../registry.js'
import { errorText } from '../quarantine.js'
import { collectWhenQuiet } from './idle-collect.js'
import type { FromThread, ThreadData, ToThread } from './messages.js'

/**
 * A projection thread: opens its own connections to the stores and runs its share of the
 * projectors, telling the main thread where each one has got to.
 */
const { config, projectors: names } = workerData as ThreadData
const port = parentPort!
const send = (message: FromThread): void => port.postMessage(message)
/** Shortly after the runners drop their kept documents and derivations on going idle (2 s). */
const worked = collectWhenQuiet(3000)

// Requests on the main thread come first on a busy CPU; projections take what is left.
const refused = lowerThreadPriority(config.HEDGELOG_PROJECTION_NICE)
if (refused) send({ type: 'log', level: 'warn', fields: { err: errorText(refused) }, message: 'could not lower the projection thread priority' })

const { log, store, probes } = await openStoresLazily(config)
/** Until every store has answered; a store that stopped answering is told once, without a stack. */
const storesAnswer = () => waitForStores(probes, {
  probeTimeoutMs: config.HEDGELOG_HEALTH_PROBE_TIMEOUT_MS,
  onWaiting: (what, reason) => send({ type: 'log', level: 'warn', fields: { projections: names, reason }, message: `projection thread waiting for ${what} to answer` }),
})

const projectionSet = (): ProjectionSet => new ProjectionSet({
  log, store,
  registry: new ProjectionRegistry(store),
  projectors: allProjectors.filter((projector) => names.includes(projector.name)),
  partitions: config.HEDGELOG_PROJECTION_PARTITIONS,
  partitionLeaseMs: config.HEDGELOG_PROJECTION_LEASE_MS,
  onError: (projection, error, fatal) => send({
    type: 'log', level: fatal ? 'error' : 'warn', fields: { projection, err: errorText(error) },
    message: fatal ? 'projection stopped' : 'projection failed to advance; retrying',
  }),
  onQuarantine: (projection, record) => send({ type: 'log', level: 'error', fields: { projection, quarantined: record }, message: 'event quarantined: the projection skipped it' }),
  onAdvance: (name, position) => {
    worked()
    send({ type: 'advanced', name, position: positionToString(position) })
  },
  onLive: (name) => send({ type: 'live', name }),
  onProgress: (projection, position, head) => send({ type: 'log', level: 'info', fields: { projection, position, head }, message: 'projection catching up with the event log' }),
})
let projections = projectionSet()

const answer = async (message: Extract<ToThread, { type: 'request' }>): Promise<void> => {
  try {
    switch (message.call) {
      case 'status': return send({ type: 'reply', id: message.id, value: await projections.status() })
      case 'quarantined': return send({ type: 'reply', id: message.id, value: await projections.quarantined() })
      case 'rebuild':
        await projections.rebuild(message.name)
        return send({ type: 'reply', id: message.id })
      case 'stop':
        await projections.stop()
        await log.close()
        await store.close()
        send({ type: 'reply', id: message.id })
        port.close()
        return
    }
  } catch (error) {
    send({ type: 'reply', id: message.id, error: errorText(error) })
  }
}

port.on('message', (message: ToThread) => {
  if (message.type === 'wake') (log as { notifyExternalCommit?: () => void }).notifyExternalCommit?.()
  else void answer(message)
})
// A store that stops answering while the projections start is waited for again, and they start afresh.
for (;;) {
  await storesAnswer()
  try {
    await projections.start()
    break
  } catch (error) {
    if (!isTransientStoreError(error)) throw error
    send({ type: 'log', level: 'warn', fields: { projections: names, reason: errorText(error) }, message: 'a store stopped answering while the projections started; starting them again once it answers' })
    await projections.stop()
    projections = projectionSet()
  }
}
send({ type: 'started' })
