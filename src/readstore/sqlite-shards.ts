import type { Projector } from './projector.js'

/**
 * The read models the embedded store keeps in files of their own, by the projection that builds
 * them: its collections, the first of which anchors its builds. Each file has its own write lock,
 * so the threads that build them commit side by side instead of waiting for each other; a build's
 * documents, its checkpoint, what it staged and what it quarantined live in one file, so its
 * commits stay one local transaction. Everything else (the management read models, the projection
 * registry, leases) is in the main file.
 */
export type OwnFiles = Readonly<Record<string, readonly string[]>>

/** The files of the projectors that ask for one of their own (`ownFile`). */
export const ownFilesOf = (projectors: readonly Projector[]): OwnFiles =>
  Object.fromEntries(projectors.filter((projector) => projector.ownFile)
    .map((projector) => [projector.name, [...projector.collections, ...(projector.partitionState ?? [])]]))

/** Where each build of a store's own files lives. */
export class ShardMap {
  private readonly shardOf: ReadonlyMap<string, string>

  constructor(readonly files: OwnFiles) {
    this.shardOf = new Map(Object.entries(files).flatMap(([shard, collections]) => collections.map((collection) => [collection, shard] as const)))
  }

  /** The build a physical collection (`events_v1_b2`) belongs to, when its projection has a file of its own. */
  buildOfCollection(collection: string): BuildInFile | null {
    const match = PHYSICAL.exec(collection)
    const shard = match ? this.shardOf.get(match[1]!) : undefined
    return shard === undefined ? null : { shard, suffix: match![2]! }
  }

  /**
   * The build a checkpoint (`events@v1#2`, or a partition's, `events@v1#2~0of4`) or a staging
   * group (`events@v1#2@<position>`) belongs to, when its projection has a file of its own.
   */
  buildOfCheckpoint(checkpoint: string): BuildInFile | null {
    const match = CHECKPOINT.exec(checkpoint)
    return match && Object.hasOwn(this.files, match[1]!) ? { shard: match[1]!, suffix: `_v${match[2]}_b${match[3]}` } : null
  }

  /**
   * The collection whose table tells where a build lives: builds made before their projection had a
   * file of its own stay in the main file, where their tables already are.
   */
  anchorOf(build: BuildInFile): string {
    return `${this.files[build.shard]![0]}${build.suffix}`
  }
}

/** One build's part of a file of its own: the projection's name and the build's table suffix (`_v2_b1`). */
export interface BuildInFile {
  readonly shard: string
  readonly suffix: string
}

const PHYSICAL = /^([a-z][a-z0-9_]*?)(_v\d+_b\d+)$/
const CHECKPOINT = /^([^@]+)@v(\d+)#(\d+)(?:~\d+of\d+)?(?:@|$)/

/** The path of a projection's own file beside the main file (`readmodels.sqlite` → `readmodels-events.sqlite`). */
export const shardPath = (mainPath: string, shard: string): string =>
  mainPath === ':memory:' ? ':memory:' : mainPath.endsWith('.sqlite') ? `${mainPath.slice(0, -'.sqlite'.length)}-${shard}.sqlite` : `${mainPath}-${shard}`
