/** People of the generated history. */
const PEOPLE = 100_000
/** Events sent in one `/batch/` request while a history is ingested, and requests at a time. */
const BATCH = 1000
const PARALLEL = 4
/** How long the history lasts, from its first day. */
export const HISTORY_DAYS = 300
export const HISTORY_START = Date.UTC(2025, 0, 1)
export const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Opera'] as const
/** The events a funnel can chain: every visit starts with the first, half go on to the second, a sixth to the third. */
export const FUNNEL_EVENTS = ['$pageview', 'signed_up', 'purchased'] as const

/**
 * Spreads each run of `PEOPLE` visits over every person once, in an order unlike their numbers,
 * so that a person's next visit is not always one round later to the day (7919 is prime to
 * `PEOPLE`, so each run is a permutation).
 */
const personOf = (visit: number): number => (visit * 7919) % PEOPLE

/**
 * The captured event number `i` of a history of `total` events over 300 days and 100,000 people,
 * in timestamp order: visits of three events, about 26 s apart for a million events, each visit a
 * session. A visit is a `$pageview`, then `signed_up` on half the visits (else another pageview),
 * then `purchased` on a third of those (else another pageview). People visit about once in 90
 * days, each with one of five browsers (`$browser`), first under an anonymous id; a fifth of them
 * are identified on their second visit (`$identify` with `$anon_distinct_id` instead of the
 * visit's pageview) and use that id afterwards. Events name two group types.
 */
export const historical = (i: number, total: number) => {
  const visit = Math.floor(i / 3)
  const step = i % 3
  const person = personOf(visit)
  const round = Math.floor(visit / PEOPLE)
  const timestamp = new Date(HISTORY_START + Math.floor((i / total) * HISTORY_DAYS * 86_400_000)).toISOString()
  if (person % 5 === 0 && round === 1 && step === 0) {
    return { event: '$identify', distinct_id: `user-${person}`, timestamp, properties: { $anon_distinct_id: `anon-${person}`, $set: { email: `p${person}@example.com` } } }
  }
  const signedUp = visit % 2 === 0
  const event = step === 1 && signedUp ? FUNNEL_EVENTS[1] : step === 2 && signedUp && visit % 3 === 0 ? FUNNEL_EVENTS[2] : FUNNEL_EVENTS[0]
  return {
    event, distinct_id: person % 5 === 0 && round > 0 ? `user-${person}` : `anon-${person}`, timestamp,
    properties: {
      $session_id: `s-${person}-${round}`, $current_url: `https://example.com/p/${i % 500}`, $browser: BROWSERS[Math.floor(person / 5) % BROWSERS.length],
      $groups: { company: `c-${person % 2000}`, team: `t-${person % 300}` }, $set: { last_round: round },
    },
  }
}

/** Sends the history of `total` events to a started service's `/batch/`, a thousand events a request, four requests at a time. */
export const ingestHistory = async (address: string, token: string, total: number): Promise<void> => {
  let next = 0
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < total) {
      const from = next
      next += BATCH
      const batch = Array.from({ length: Math.min(BATCH, total - from) }, (_, j) => historical(from + j, total))
      const response = await fetch(`${address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch }) })
      if (response.status !== 200) throw new Error(`/batch/ answered ${response.status}`)
    }
  }))
}
