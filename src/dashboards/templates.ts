import type { JsonObject } from '../eventlog/port.js'

/** An insight a template puts on the new dashboard. */
export interface TemplateInsight {
  readonly name: string
  readonly description: string
  readonly query: JsonObject
}

/**
 * Built-in dashboard templates. A template fills what a dashboard itself holds (name,
 * description, tags, text cards) and names insights to create on it, each as an insight tile.
 */
export interface DashboardTemplate {
  readonly name: string
  readonly description: string
  readonly tags: readonly string[]
  readonly textCards: readonly string[]
  readonly insights: readonly TemplateInsight[]
}

const pageviews = (math?: string): JsonObject => ({ kind: 'EventsNode', event: '$pageview', name: '$pageview', ...(math ? { math } : {}) })

const trends = (source: JsonObject): JsonObject => ({
  kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [pageviews('dau')], interval: 'day', ...source },
})

/** PostHog's "Product analytics" template, in its six insights, named and described in Hedgelog's words. */
const PRODUCT_ANALYTICS: readonly TemplateInsight[] = [
  {
    name: 'Daily active users',
    description: 'Distinct users who viewed a page, each day of the last month.',
    query: trends({ dateRange: { date_from: '-30d' } }),
  },
  {
    name: 'Weekly active users',
    description: 'Distinct users who viewed a page, each week of the last quarter.',
    query: trends({ interval: 'week', dateRange: { date_from: '-90d' } }),
  },
  {
    name: 'Retention',
    description: 'Of the users first seen in a week, how many come back in the weeks after.',
    query: {
      kind: 'InsightVizNode',
      source: {
        kind: 'RetentionQuery', dateRange: { date_from: '-7w' },
        retentionFilter: {
          period: 'Week', totalIntervals: 8, retentionType: 'retention_first_time',
          targetEntity: { id: '$pageview', type: 'events', name: '$pageview' }, returningEntity: { id: '$pageview', type: 'events', name: '$pageview' },
        },
      },
    },
  },
  {
    name: 'Growth accounting',
    description: 'New, returning, resurrected and dormant users, day by day.',
    query: { kind: 'InsightVizNode', source: { kind: 'LifecycleQuery', series: [pageviews()], interval: 'day', dateRange: { date_from: '-30d' } } },
  },
  {
    name: 'Referring domains',
    description: 'Where visitors came from in the last two weeks, by distinct users.',
    query: trends({
      dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown: '$referring_domain', breakdown_type: 'event' },
      trendsFilter: { display: 'ActionsBarValue' },
    }),
  },
  {
    name: 'Page views by path',
    description: 'The pages viewed most in the last week.',
    query: {
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery', series: [pageviews()], interval: 'day', dateRange: { date_from: '-7d' },
        breakdownFilter: { breakdown: '$pathname', breakdown_type: 'event' }, trendsFilter: { display: 'ActionsTable' },
      },
    },
  },
]

export const TEMPLATES: Readonly<Record<string, DashboardTemplate>> = {
  DEFAULT_APP: {
    name: 'Product analytics',
    description: 'High-level overview of your product: usage, growth and retention.',
    tags: [],
    textCards: [],
    insights: PRODUCT_ANALYTICS,
  },
  WEBSITE_TRAFFIC: {
    name: 'Website traffic',
    description: 'Visitors, page views and sources of your website.',
    tags: [],
    textCards: [
      '## Unique visitors\nDistinct users with a `$pageview`.',
      '## Page views\nAll `$pageview` events.',
      '## Top pages\n`$pathname` by page views.',
      '## Top sources\n`$referring_domain` and `utm_source` by visitors.',
    ],
    insights: [],
  },
}
