import t from 'tap'
import { channelTypeOf, type ChannelInput } from '../../src/sessions/channel-type.js'
import { SESSION_PROPERTIES, sessionProperties } from '../../src/sessions/session-properties.js'
import { foldSession, observedValues, type SessionRecord } from '../../src/sessions/sessions.js'
import { captured, normalised } from './support/tables.js'

const event = (name: string, timestamp: string, properties: Record<string, unknown>, distinctId = 'u1') =>
  normalised(captured(name, distinctId, { timestamp, properties: { $session_id: 's1', ...properties } }))

const fold = (...events: ReturnType<typeof event>[]): SessionRecord =>
  events.reduce<SessionRecord | null>((session, one) => foldSession(session, 1, 's1', one), null)!

t.test('a session spans its events and takes entry values from the earliest event having them', async (t) => {
  const session = fold(
    event('$pageview', '2024-01-01T10:00:05.000Z', { $current_url: 'https://a.test/second', utm_source: 'late' }, 'u2'),
    event('$pageview', '2024-01-01T10:00:00.000Z', { $current_url: 'https://a.test/first?x=1' }, 'u1'),
    event('$autocapture', '2024-01-01T10:00:30.000Z', { $current_url: 'https://b.test/last', $external_click_url: 'https://out.test' }),
  )
  const properties = sessionProperties(session)
  t.match(properties, {
    $start_timestamp: '2024-01-01T10:00:00.000Z', $end_timestamp: '2024-01-01T10:00:30.000Z',
    $entry_current_url: 'https://a.test/first?x=1', $entry_pathname: '/first', $entry_hostname: 'a.test',
    $end_current_url: 'https://b.test/last', $end_pathname: '/last', $end_hostname: 'b.test',
    $entry_utm_source: 'late', $last_external_click_url: 'https://out.test',
    $pageview_count: 2, $autocapture_count: 1, $screen_count: 0, $session_duration: 30, $is_bounce: false,
  })
  t.equal(session.distinct_id, 'u1', 'the earliest event names the session\'s distinct id')
})

t.test('a single short page view is a bounce; a session without views has no verdict', async (t) => {
  t.equal(sessionProperties(fold(event('$pageview', '2024-01-01T10:00:00.000Z', {}))).$is_bounce, true)
  t.equal(sessionProperties(fold(
    event('$pageview', '2024-01-01T10:00:00.000Z', {}), event('custom', '2024-01-01T10:00:10.000Z', {}),
  )).$is_bounce, false, 'ten seconds is not a bounce')
  t.equal(sessionProperties(fold(event('custom', '2024-01-01T10:00:00.000Z', {}))).$is_bounce, null)
})

t.test('the session properties are the 37 PostHog lists', async (t) => {
  t.equal(SESSION_PROPERTIES.length, 37)
  t.same(Object.keys(sessionProperties(fold(event('$pageview', '2024-01-01T10:00:00.000Z', {})))).sort(), SESSION_PROPERTIES.map(([name]) => name).sort())
})

t.test('each event contributes its text values, and its URL\'s host and path', async (t) => {
  t.same(observedValues({ $current_url: 'https://a.test/p?q', utm_source: 'google', utm_medium: '', gclid: 12, $referring_domain: '$direct' }), [
    ['$current_url', 'https://a.test/p?q'], ['url_host', 'a.test'], ['url_path', '/p'],
    ['$referring_domain', '$direct'], ['utm_source', 'google'], ['gclid', '12'],
  ])
})

const channel = (input: Partial<ChannelInput>) => channelTypeOf({
  source: null, medium: null, campaign: null, referringDomain: null, gclid: null, gadSource: null, fbclid: null, ...input,
})

t.test('channel types follow the shape of PostHog\'s default rules', async (t) => {
  t.equal(channel({ campaign: 'spring-cross-network' }), 'Cross Network')
  t.equal(channel({ source: 'google', medium: 'cpc' }), 'Paid Search')
  t.equal(channel({ gclid: 'x', referringDomain: 'www.google.com' }), 'Paid Search')
  t.equal(channel({ source: 'facebook', medium: 'paid_social' }), 'Paid Social')
  t.equal(channel({ source: 'youtube', medium: 'cpv' }), 'Paid Video')
  t.equal(channel({ medium: 'cpc', campaign: 'shopping-q3' }), 'Paid Shopping')
  t.equal(channel({ medium: 'ppc' }), 'Paid Unknown')
  t.equal(channel({ referringDomain: '$direct' }), 'Direct')
  t.equal(channel({ referringDomain: 'www.bing.com' }), 'Organic Search')
  t.equal(channel({ referringDomain: 't.co' }), 'Organic Social')
  t.equal(channel({ source: 'vimeo' }), 'Organic Video')
  t.equal(channel({ referringDomain: 'www.amazon.de' }), 'Organic Shopping')
  t.equal(channel({ medium: 'push' }), 'Push')
  t.equal(channel({ medium: 'sms' }), 'SMS')
  t.equal(channel({ medium: 'audio' }), 'Audio')
  t.equal(channel({ medium: 'email' }), 'Email')
  t.equal(channel({ medium: 'affiliate' }), 'Affiliate')
  t.equal(channel({ referringDomain: 'blog.example.org' }), 'Referral')
  t.equal(channel({}), 'Unknown')
})

t.test('an event named after what Object.prototype holds counts as a plain event, adding no field', async (t) => {
  const plain = fold(event('custom', '2024-01-01T10:00:00.000Z', {}), event('custom', '2024-01-01T10:00:01.000Z', {}))
  for (const name of ['toString', '__proto__', 'constructor', 'valueOf']) {
    const session = fold(event('custom', '2024-01-01T10:00:00.000Z', {}), event(name, '2024-01-01T10:00:01.000Z', {}))
    t.same(session, plain, name)
  }
})
