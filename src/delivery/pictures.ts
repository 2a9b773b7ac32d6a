import type { ChartInput } from '../charts/chart-input.js'
import type { InsightReport } from './insight-reports.js'

/** Draws one chart as a PNG. */
export type RenderPicture = (input: ChartInput) => Promise<Buffer>

/**
 * A link to an insight's picture that a receiver elsewhere can open (Slack fetches image blocks
 * from it; webhooks get it as `picture_url`): signed and expiring. Null when none can be made.
 */
export type PictureLink = (insight: InsightReport, png: Buffer) => Promise<string | null>

/** One insight's picture in a delivery. */
export interface Picture {
  readonly png: Buffer
  /** The picture's public link, when the target needs one and one could be made. */
  readonly url: string | null
}

export interface PictureOptions {
  readonly render: RenderPicture
  /** Makes each picture's link; none when the target shows pictures only inline (e-mail). */
  readonly link: PictureLink | null
  readonly log: (fields: Record<string, unknown>, message: string) => void
}

/**
 * The pictures of a delivery's insights, in their order: null for an insight whose query failed
 * or whose picture could not be drawn (logged), so it goes with its text only. One picture is
 * drawn at a time: the drawing itself runs off the event loop, and a delivery's six need no more.
 */
export const drawPictures = async (insights: readonly InsightReport[], options: PictureOptions): Promise<(Picture | null)[]> => {
  const pictures: (Picture | null)[] = []
  for (const insight of insights) {
    if (insight.error !== null) {
      pictures.push(null)
      continue
    }
    let png: Buffer
    try {
      png = await options.render(insight.chart)
    } catch (error) {
      options.log({ insight: insight.id, err: error instanceof Error ? error.message : String(error) }, 'an insight\'s picture could not be drawn; it is delivered as text')
      pictures.push(null)
      continue
    }
    let url: string | null = null
    if (options.link) {
      try {
        url = await options.link(insight, png)
      } catch (error) {
        options.log({ insight: insight.id, err: error instanceof Error ? error.message : String(error) }, 'no link could be made to an insight\'s picture')
      }
    }
    pictures.push({ png, url })
  }
  return pictures
}
