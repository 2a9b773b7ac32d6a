import type { FeatureModule } from '../http/feature-module.js'
import { unfinishedCommands } from './unfinished-commands.js'

/** Commands across two streams whose second step is still to be written, for the process that finishes them. */
export const schedulerModule: FeatureModule = {
  name: 'scheduler',
  projectors: [unfinishedCommands],
}
