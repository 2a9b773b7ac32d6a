import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Figure } from './figures.js'
import { compareWithBare, comparisonNote } from './http-load.js'
import { pacedLoad } from './paced-load.js'
import { startBare, startHedgelog } from './processes.js'
import { client, install, projected } from './setup.js'
import { TARGETS, measured } from './targets.js'

const OPERATORS = [
  ['plan', 'exact', 'pro'], ['email', 'icontains', 'example'], ['age', 'gt', '30'], ['country', 'is_not', 'FR'],
  ['signed_up', 'is_date_after', '-90d'], ['name', 'regex', '^a'], ['beta', 'exact', ['true']], ['score', 'lte', '50'],
] as const

/** Fifty flags of every kind: rollouts, property conditions, multivariate with payloads, overrides. */
export const flags = Array.from({ length: 50 }, (_, i) => {
  const [key, operator, value] = OPERATORS[i % OPERATORS.length]!
  const condition = { properties: i % 5 === 0 ? [] : [{ key, operator, value, type: 'person' }], rollout_percentage: (i * 17) % 101 }
  const multivariate = i % 3 === 0
    ? { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] }
    : null
  return {
    key: `flag-${i}`,
    filters: { groups: [condition], ...(multivariate ? { multivariate, payloads: { test: { n: i } } } : { payloads: { true: { n: i } } }) },
  }
})

export const personProperties = {
  plan: 'pro', email: 'ada@example.com', age: 36, country: 'GB', signed_up: new Date(Date.now() - 10 * 86_400_000).toISOString(),
  name: 'ada', beta: 'true', score: 42, company: 'Acme', role: 'engineer', seats: 12, locale: 'en-GB', theme: 'dark',
  referrer: 'search', os: 'Linux', browser: 'Firefox', device: 'desktop', city: 'London', team: 'core', tier: 'gold',
}

/**
 * `/decide?v=3` on the default `serve` with 50 flags and a person with 20 stored properties, as a
 * share of a bare fastify route parsing the same POST and answering the same bytes (closed loop,
 * 64 connections, measured in turns with it), and its p99 at an open-loop rate of a quarter of the
 * bare route's rate: requests evenly spaced and timed from when each was due, with the bare
 * route's p99 at that rate beside it. The same person is asked about each time, as an SDK does
 * for its user; a second ratio asks about a new person each time (properties in the request),
 * so that none of decide's bucketing hashes is remembered. Its p99 is also taken at half of its
 * own closed-loop rate, where queueing adds little and what remains is what holds the loop.
 */
export const decideFigures = async (durationMs: number): Promise<Figure[]> => {
  const installed = await install()
  const service = await startHedgelog(installed.dir, '0')
  try {
    await projected(service.address)
    const api = client(service.address, installed)
    for (const flag of flags) await api.post(`${api.base}/feature_flags/`, flag)
    await fetch(`${service.address}/capture/`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: installed.token, event: '$identify', distinct_id: 'ada', properties: { $set: personProperties } }),
    })
    await projected(service.address)
    const body = JSON.stringify({ token: installed.token, distinct_id: 'ada', groups: {}, geoip_disable: true })
    const url = `${service.address}/decide/?v=3`
    const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text())
    if (Object.keys((JSON.parse(answer) as { featureFlags: object }).featureFlags).length !== flags.length) throw new Error(`decide answered ${answer.slice(0, 200)}`)
    const file = join(installed.dir, 'bare-decide.json')
    writeFileSync(file, JSON.stringify([{ method: 'POST', path: '/decide/', body: answer }]))
    const bare = await startBare(file)
    const bareLoad = { url: `${bare.address}/decide/?v=3`, method: 'POST', bodies: [body], connections: 64, durationMs } as const
    // Each request a person decide has not seen, with the same properties sent in the request.
    const [before, after] = JSON.stringify({ token: installed.token, distinct_id: '#', groups: {}, geoip_disable: true, person_properties: personProperties }).split('"#"')
    // Numbered across every run of the comparison, so that no person comes twice.
    let asked = 0
    const freshBody = (): string => `${before}"fresh-${asked++}"${after}`
    const [closed, bareOpen, fresh] = await (async () => {
      try {
        const compared = await compareWithBare(bareLoad, { ...bareLoad, url })
        const paced = await pacedLoad({ url: bareLoad.url, method: 'POST', body, rate: compared.bare.perSecond / 4, connections: 64, durationMs })
        return [compared, paced, await compareWithBare({ ...bareLoad, bodyOf: freshBody }, { ...bareLoad, url, bodyOf: freshBody })] as const
      } finally {
        await bare.stop()
      }
    })()
    const rate = closed.bare.perSecond / 4
    const open = await pacedLoad({ url, method: 'POST', body, rate, connections: 64, durationMs })
    // A quarter of the bare rate is most of decide's own: its p99 there is mostly queueing. At half
    // of decide's own rate, what is left of the p99 is what holds the loop.
    const halfRate = closed.served.perSecond / 2
    const half = await pacedLoad({ url, method: 'POST', body, rate: halfRate, connections: 64, durationMs })
    const share = (offered: number) => `${Math.round((100 * offered) / closed.served.perSecond)} % of decide's closed-loop rate`
    const ms = (value: number) => value.toFixed(2)
    return [
      measured(TARGETS.decide, closed.percent, comparisonNote(closed)),
      { name: 'bare fastify POST p99 at that open-loop rate (the generator\'s floor)', value: bareOpen.p99Ms, unit: 'ms', note: `p50 ${ms(bareOpen.p50Ms)} ms, max ${ms(bareOpen.maxMs)} ms` },
      { name: '/decide?v=3, a person not asked about before in each request', value: fresh.percent, unit: '% of bare POST', note: comparisonNote(fresh) },
      measured(TARGETS.decideP99, open.p99Ms, `at ${Math.round(rate)} req/s (${share(rate)}): p50 ${ms(open.p50Ms)} ms, max ${ms(open.maxMs)} ms, ${Math.round(open.perSecond)} req/s answered, ${open.unanswered} unanswered`),
      {
        name: '/decide?v=3 p99 at half its own closed-loop rate, open loop', value: half.p99Ms, unit: 'ms',
        note: `at ${Math.round(halfRate)} req/s: p50 ${ms(half.p50Ms)} ms, max ${ms(half.maxMs)} ms, ${half.unanswered} unanswered`,
      },
    ]
  } finally {
    await service.stop()
    installed.remove()
  }
}
