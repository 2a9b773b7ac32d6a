/** PostHog's default channel types, in the order its `values` helper lists them. */
export const CHANNEL_TYPES = [
  'Cross Network', 'Paid Search', 'Paid Social', 'Paid Video', 'Paid Shopping', 'Paid Unknown', 'Direct',
  'Organic Search', 'Organic Social', 'Organic Video', 'Organic Shopping', 'Push', 'SMS', 'Audio', 'Email',
  'Referral', 'Affiliate', 'Unknown',
] as const

export type ChannelType = (typeof CHANNEL_TYPES)[number]
type Category = 'Search' | 'Social' | 'Video' | 'Shopping'

/** Well-known sources by category: a short list standing in for PostHog's source table. */
const SOURCES: Readonly<Record<Category, readonly string[]>> = {
  Search: ['google', 'bing', 'yahoo', 'duckduckgo', 'baidu', 'yandex', 'ecosia', 'naver', 'ask', 'aol', 'qwant', 'brave'],
  Social: ['facebook', 'fb', 'instagram', 'ig', 'twitter', 'x', 't.co', 'linkedin', 'lnkd.in', 'reddit', 'pinterest',
    'tiktok', 'snapchat', 'whatsapp', 'telegram', 'threads', 'quora', 'tumblr', 'mastodon', 'bsky', 'discord'],
  Video: ['youtube', 'youtu.be', 'vimeo', 'twitch', 'dailymotion', 'wistia'],
  Shopping: ['amazon', 'ebay', 'etsy', 'shopify', 'walmart', 'aliexpress', 'shopping'],
}

const categoryOfName = (name: string): Category | null => {
  for (const [category, names] of Object.entries(SOURCES) as [Category, readonly string[]][]) {
    if (names.includes(name)) return category
  }
  return null
}

/** `www.google.co.uk` → Search: any label (or the whole host) that is a known source. */
const categoryOfDomain = (domain: string): Category | null => {
  const host = domain.toLowerCase().replace(/^www\./, '')
  return categoryOfName(host) ?? host.split('.').reduce<Category | null>((found, label) => found ?? categoryOfName(label), null)
}

export interface ChannelInput {
  readonly source: string | null
  readonly medium: string | null
  readonly campaign: string | null
  readonly referringDomain: string | null
  readonly gclid: string | null
  readonly gadSource: string | null
  readonly fbclid: string | null
}

const PAID_MEDIUM = /^(.*cp.*|ppc|retargeting|paid.*)$/
const SHOPPING_CAMPAIGN = /^(.*(([^a-df-z]|^)shop|shopping).*)$/

const paidChannel = (category: Category | null, input: ChannelInput, campaign: string): ChannelType => {
  if (category) return `Paid ${category}`
  if (SHOPPING_CAMPAIGN.test(campaign)) return 'Paid Shopping'
  if (input.gclid || input.gadSource === '1') return 'Paid Search'
  if (campaign.includes('video')) return 'Paid Video'
  return 'Paid Unknown'
}

const organicByMedium = (medium: string, source: string): ChannelType | null => {
  if (/^(.*social.*|sm)$/.test(medium)) return 'Organic Social'
  if (medium.includes('video')) return 'Organic Video'
  if (medium === 'organic') return 'Organic Search'
  if (/push$/.test(medium) || medium === 'mobile' || medium === 'notification') return 'Push'
  if (medium === 'sms' || source === 'sms') return 'SMS'
  if (medium.includes('audio')) return 'Audio'
  if (/^e[-_ ]?mail$/.test(medium) || /^e[-_ ]?mail$/.test(source)) return 'Email'
  if (medium.includes('affiliate')) return 'Affiliate'
  if (medium === 'referral' || medium === 'app' || medium === 'link') return 'Referral'
  return null
}

/**
 * The session's channel, following the shape of PostHog's default channel rules (cross-network
 * campaigns, then paid, then direct, then organic by source, campaign and medium, then referral).
 * The source categories come from the short lists above, not PostHog's full tables.
 */
export const channelTypeOf = (input: ChannelInput): ChannelType => {
  const source = (input.source ?? '').toLowerCase()
  const medium = (input.medium ?? '').toLowerCase()
  const campaign = (input.campaign ?? '').toLowerCase()
  const domain = input.referringDomain ?? ''
  if (campaign.includes('cross-network')) return 'Cross Network'
  const category = (source ? categoryOfName(source) : null) ?? (domain && domain !== '$direct' ? categoryOfDomain(domain) : null)
  if (PAID_MEDIUM.test(medium) || input.gclid || input.gadSource) return paidChannel(category, input, campaign)
  const noSource = source === '' || source === '(direct)' || source === 'direct' || source === '$direct'
  if (domain === '$direct' && medium === '' && noSource && !input.fbclid) return 'Direct'
  if (category) return `Organic ${category}`
  if (input.fbclid) return 'Organic Social'
  if (SHOPPING_CAMPAIGN.test(campaign)) return 'Organic Shopping'
  const byMedium = organicByMedium(medium, source)
  if (byMedium) return byMedium
  if (domain === '$direct') return 'Direct'
  return domain ? 'Referral' : 'Unknown'
}
