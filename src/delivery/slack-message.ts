import { tableText } from '../insights/result-table.js'
import type { InsightReport } from './insight-reports.js'
import type { Picture } from './pictures.js'
import { heading, reportTarget, type Report } from './report.js'

/** A Slack Block Kit block, as JSON. */
export type SlackBlock = Record<string, unknown>

/** One message to post: its blocks and the plain text Slack shows where blocks are not (notifications). */
export interface SlackMessage {
  readonly text: string
  readonly blocks: readonly SlackBlock[]
}

/** The main message and, in order, the ones that follow it (a thread's replies, in PostHog). */
export interface SlackMessages {
  readonly main: SlackMessage
  readonly followUps: readonly SlackMessage[]
}

/** Text made safe in Slack's mrkdwn, where `&`, `<` and `>` are control characters. */
export const escapeMrkdwn = (text: string): string => text.replace(/[&<>]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[char]!)

/** Slack refuses a section whose text is longer than 3000 characters. */
const SECTION_LIMIT = 3000

const section = (text: string): SlackBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: text.length > SECTION_LIMIT ? `${text.slice(0, SECTION_LIMIT - 1)}…` : text },
})

/** An insight's block: its picture, or (when it has none) its name and its table or why there is none. */
const insightBlock = (insight: InsightReport, url: string | null): SlackBlock => {
  if (url) return { type: 'image', image_url: url, alt_text: insight.name }
  const title = `*<${insight.url}|${escapeMrkdwn(insight.name)}>*`
  const body = insight.table ? `\`\`\`${tableText(insight.table)}\`\`\`` : `_${escapeMrkdwn(insight.error ?? 'No results yet.')}_`
  return section(`${title}\n${body}`)
}

/**
 * A delivery as Slack messages with pictures, as PostHog lays them out: the main message holds a
 * header line, the first insight's picture, a pointer to the rest when there are more, a divider
 * and buttons to the dashboard or insight and to the subscription; each further insight follows
 * in a message of its own (`threaded`: a reply in the main message's thread), and a last one says
 * how many of the dashboard's insights were shown when some were left out. `pictures` are in the
 * order of `report.insights`. `fallback` is the main message's plain text.
 */
export const slackMessages = (report: Report, pictures: readonly (Picture | null)[], fallback: string, threaded = false): SlackMessages => {
  const target = reportTarget(report)
  const [first, ...others] = report.insights.map((insight, i) => ({ insight, block: insightBlock(insight, pictures[i]?.url ?? null) }))
  const header = `*${escapeMrkdwn(heading(report))}*: the ${target.kind} *<${target.url}|${escapeMrkdwn(target.name)}>*, ${escapeMrkdwn(report.subscription.summary)}.`
  const main: SlackBlock[] = [
    section(header),
    ...(first ? [first.block] : []),
    ...(others.length > 0 ? [section(threaded ? '_See the thread for more insights_' : '_See the following messages for more insights_')] : []),
    { type: 'divider' },
    {
      type: 'actions',
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'View in Hedgelog' }, url: target.url },
        { type: 'button', text: { type: 'plain_text', text: 'Manage Subscription' }, url: report.manage_url },
      ],
    },
  ]
  const shown = report.insights.length
  const followUps: SlackMessage[] = [
    ...others.map(({ insight, block }) => ({ text: insight.name, blocks: [block] })),
    ...(report.insight_count > shown
      ? [{
        text: `Showing ${shown} of ${report.insight_count} insights`,
        blocks: [section(`Showing ${shown} of ${report.insight_count} insights. <${target.url}|View the rest in Hedgelog>`)],
      }]
      : []),
  ]
  return { main: { text: fallback, blocks: main }, followUps }
}
