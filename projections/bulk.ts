import type { Projector } from '../src/readstore/projector.js'
import type { RunnerOptions } from './runner.js'

/**
 * How many times a projector's own batch a build beside the live one folds before a commit. Such
 * a build serves no query until it is switched to, so nobody waits for its commits; fewer, larger
 * ones write each hot page (a person, a session, the upper pages of each table) and copy the WAL
 * back less often, per event. Each such commit holds the thread, and the active builds on it,
 * for its whole length: over 300,000 captured events, 10 took a rebuild of the four captured-event
 * projections in one thread from 22.1 s to 21.1 s with commits of 10,000 events of 119 ms (median,
 * at most 381 ms); 20 to 19.5 s, with commits of 225 ms (at most 587 ms).
 */
export const BULK_BATCH_FACTOR = 10

/**
 * The runner options of a build beside the live one (a rebuild, a new version): larger commits,
 * and the projector's indexes created once it has caught up, before it can be switched to.
 */
export const bulkBuildOptions = (projector: Projector): Pick<RunnerOptions, 'batchSize' | 'indexesWhenLive'> => ({
  batchSize: (projector.batchSize ?? 500) * BULK_BATCH_FACTOR,
  indexesWhenLive: true,
})
