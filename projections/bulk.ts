import type { Projector } from '../src/readstore/projector.js'
import type { RunnerOptions } from './runner.js'

/**
 * How many times a projector's own batch a build beside the live one folds before a commit. Such
 * a build serves no query until it is switched to, so nobody waits for its commits; fewer, larger
 * ones write each hot page (a person, a session, the upper pages of each table) and copy the WAL
 * back less often, per event. 20 holds a commit of captured events to about 20,000 of them, a
 * tenth of a second or so of the thread: the active builds beside it still commit often.
 */
export const BULK_BATCH_FACTOR = 20

/**
 * The runner options of a build beside the live one (a rebuild, a new version): larger commits,
 * and the projector's indexes created once it has caught up, before it can be switched to.
 */
export const bulkBuildOptions = (projector: Projector): Pick<RunnerOptions, 'batchSize' | 'indexesWhenLive'> => ({
  batchSize: (projector.batchSize ?? 500) * BULK_BATCH_FACTOR,
  indexesWhenLive: true,
})
