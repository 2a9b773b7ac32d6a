/**
 * The read models the embedded store keeps in files of their own, by the projection that builds
 * them. Each file has its own write lock, so the threads that build them commit side by side
 * instead of waiting for each other; a build's documents, its checkpoint, what it staged and what
 * it quarantined live in one file, so its commits stay one local transaction. Everything else
 * (the management read models, the projection registry, leases) is in the main file.
 */
export const OWN_FILES: Readonly<Record<string, readonly string[]>> = {
  persons: ['persons', 'person_distinct_ids', 'person_distinct_id_pages', 'person_counters'],
  groups: ['groups', 'group_type_mappings'],
  sessions: ['sessions', 'session_values'],
  events: ['events'],
}

const SHARD_OF = new Map(Object.entries(OWN_FILES).flatMap(([shard, collections]) => collections.map((collection) => [collection, shard] as const)))

/** One build's part of a file of its own: the projection's name and the build's table suffix (`_v2_b1`). */
export interface BuildInFile {
  readonly shard: string
  readonly suffix: string
}

const PHYSICAL = /^([a-z][a-z0-9_]*?)(_v\d+_b\d+)$/
const CHECKPOINT = /^([^@]+)@v(\d+)#(\d+)(?:@|$)/

/** The build a physical collection (`events_v1_b2`) belongs to, when its projection has a file of its own. */
export const buildOfCollection = (collection: string): BuildInFile | null => {
  const match = PHYSICAL.exec(collection)
  const shard = match ? SHARD_OF.get(match[1]!) : undefined
  return shard === undefined ? null : { shard, suffix: match![2]! }
}

/**
 * The build a checkpoint (`events@v1#2`) or a staging group (`events@v1#2@<position>`) belongs
 * to, when its projection has a file of its own.
 */
export const buildOfCheckpoint = (checkpoint: string): BuildInFile | null => {
  const match = CHECKPOINT.exec(checkpoint)
  return match && Object.hasOwn(OWN_FILES, match[1]!) ? { shard: match[1]!, suffix: `_v${match[2]}_b${match[3]}` } : null
}

/**
 * The collection whose table tells where a build lives: builds made before their projection had a
 * file of its own stay in the main file, where their tables already are.
 */
export const anchorOf = (build: BuildInFile): string => `${OWN_FILES[build.shard]![0]}${build.suffix}`

/** The path of a projection's own file beside the main file (`readmodels.sqlite` → `readmodels-events.sqlite`). */
export const shardPath = (mainPath: string, shard: string): string =>
  mainPath === ':memory:' ? ':memory:' : mainPath.endsWith('.sqlite') ? `${mainPath.slice(0, -'.sqlite'.length)}-${shard}.sqlite` : `${mainPath}-${shard}`
