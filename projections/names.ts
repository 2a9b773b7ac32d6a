/** One build of a projector: its code version, and a counter that a rebuild increments. */
export interface Build {
  readonly version: number
  readonly build: number
}

/** Where a build keeps a logical collection: builds of one projector never share tables. */
export const physicalCollection = (collection: string, build: Build): string =>
  `${collection}_v${build.version}_b${build.build}`

/** The checkpoint a build keeps in the read store. */
export const checkpointName = (projector: string, build: Build): string =>
  `${projector}@v${build.version}#${build.build}`
