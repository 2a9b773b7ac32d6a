/**
 * Built-in dashboard templates. A template fills what a dashboard itself holds: name,
 * description, tags, and text cards that say what to add (it creates no insights).
 */
export interface DashboardTemplate {
  readonly name: string
  readonly description: string
  readonly tags: readonly string[]
  readonly textCards: readonly string[]
}

export const TEMPLATES: Readonly<Record<string, DashboardTemplate>> = {
  DEFAULT_APP: {
    name: 'Product analytics',
    description: 'High-level overview of your product: usage, growth and retention.',
    tags: [],
    textCards: [
      '## Daily active users\nUnique users with a `$pageview` each day.',
      '## Weekly active users\nUnique users with a `$pageview` each week.',
      '## Retention\nUsers who come back in the weeks after their first visit.',
      '## Growth accounting\nNew, returning, resurrected and dormant users.',
      '## Referring domain\nWhere visitors arrive from (`$referring_domain`).',
      '## Pageview funnel\nFrom the first page view to the signup page.',
    ],
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
  },
}
