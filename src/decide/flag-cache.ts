import type { ReadModels } from '../readstore/read-models.js'
import type { FeatureFlag } from '../flags/state.js'
import { groupTypesFor } from '../persons/read.js'
import { compileFlags, type CompiledFlagSet } from './compile.js'
import type { FlagDefinition, FlagDefinitionSet } from './definitions.js'

/** Group type index (as a string) → group type name, for one environment. */
export type GroupTypeMapping = Readonly<Record<string, string>>

export interface EnvironmentFlags {
  readonly definitions: FlagDefinitionSet
  readonly compiled: CompiledFlagSet
  /** Keys of the flags that keep a person's bucket across identification. */
  readonly continuityKeys: readonly string[]
  /** Changes whenever the definitions do: the flag-set version and the group types. */
  readonly stamp: string
}

export const flagDefinition = (flag: FeatureFlag): FlagDefinition => ({
  id: flag.id,
  team_id: flag.environment_id,
  key: flag.key,
  name: flag.name,
  active: flag.active,
  deleted: flag.deleted,
  ensure_experience_continuity: flag.ensure_experience_continuity,
  filters: flag.filters as FlagDefinition['filters'],
  version: flag.version,
})

type Entry = EnvironmentFlags

/** An environment's group types as the engine and the local-evaluation payload name them: index → name. */
export const groupTypeMapping = async (models: ReadModels, environmentId: number): Promise<GroupTypeMapping> =>
  Object.fromEntries((await groupTypesFor(models, environmentId)).map((type) => [String(type.group_type_index), type.group_type]))

/** The read models an environment's entry is read from. */
const DEFINITION_MODELS = ['feature_flags', 'flag_set_versions', 'group_type_mappings'] as const

/**
 * Each environment's flag definitions, compiled once and held in memory by the process that
 * serves decide. A request costs one point read of the environment's flag-set version (kept by
 * the flags projector) and of its group types; the definitions are read and compiled again only
 * when either has changed. Where those projectors run in this process, not even that: an entry
 * found current stays current until one of them applies or passes an event.
 */
export class FlagDefinitionCache {
  private readonly entries = new Map<number, Entry>()
  private readonly loading = new Map<number, Promise<Entry>>()
  /** The read models' stamp each environment's entry was last found current at. */
  private readonly checkedAt = new Map<number, string>()

  constructor(private readonly models: ReadModels) {}

  /** The entry when it is known current without a read, else undefined (then see `forEnvironment`). */
  currentNow(environmentId: number): EnvironmentFlags | undefined {
    const modelsStamp = this.models.stamp(DEFINITION_MODELS)
    const cached = this.entries.get(environmentId)
    return cached && modelsStamp !== null && this.checkedAt.get(environmentId) === modelsStamp ? cached : undefined
  }

  async forEnvironment(environmentId: number): Promise<EnvironmentFlags> {
    const modelsStamp = this.models.stamp(DEFINITION_MODELS)
    const cached = this.entries.get(environmentId)
    if (cached && modelsStamp !== null && this.checkedAt.get(environmentId) === modelsStamp) return cached
    const [version, mapping] = await Promise.all([
      this.models.get('flag_set_versions', String(environmentId)),
      groupTypeMapping(this.models, environmentId),
    ])
    const stamp = `${version?.version ?? 0}|${JSON.stringify(mapping)}`
    const entry = await this.entryFor(environmentId, stamp, mapping)
    // A load still running from an earlier read may answer for other definitions than read here.
    if (modelsStamp !== null && entry.stamp === stamp) this.checkedAt.set(environmentId, modelsStamp)
    return entry
  }

  private entryFor(environmentId: number, stamp: string, mapping: GroupTypeMapping): Promise<Entry> | Entry {
    const cached = this.entries.get(environmentId)
    if (cached && cached.stamp === stamp) return cached
    const pending = this.loading.get(environmentId)
    if (pending) return pending
    const load = this.load(environmentId, stamp, mapping).finally(() => this.loading.delete(environmentId))
    this.loading.set(environmentId, load)
    return load
  }

  private async load(environmentId: number, stamp: string, mapping: GroupTypeMapping): Promise<Entry> {
    const flags = await this.models.find('feature_flags', { where: { environment_id: environmentId, deleted: false }, orderBy: [['id', 'asc']] })
    const definitions: FlagDefinitionSet = { flags: flags.map(flagDefinition), group_type_mapping: mapping, cohorts: {} }
    const continuityKeys = flags.filter((flag) => flag.ensure_experience_continuity).map((flag) => flag.key)
    const entry: Entry = { definitions, compiled: compileFlags(definitions), continuityKeys, stamp }
    this.entries.set(environmentId, entry)
    return entry
  }
}
