import t, { type Test } from 'tap'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { client } from '../support/client.js'
import { world } from '../support/world.js'
import { chromiumAvailable, launchChromium, servePage, watchRequests } from '../support/browser.js'
import { shopPage } from './support/page.js'

const ARTIFACTS = join(process.cwd(), 'test-artifacts')

const isGzip = (body: Buffer | null): boolean => body !== null && body[0] === 0x1f && body[1] === 0x8b

/** A request body as text, unzipped when posthog-js gzipped it. */
const bodyText = (body: Buffer | null): string => (body === null ? '' : isGzip(body) ? gunzipSync(body) : body).toString()

type Api = ReturnType<typeof client>

/** Hedgelog listening on its own port, with the page on another origin. */
const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  await api.get('/api/users/@me/') // makes the app listen
  const address = w.app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  const host = `http://127.0.0.1:${address.port}`
  const token = w.installation.project_api_key
  const page = await servePage(t, shopPage(host, token))
  return { ...w, api, host, token, pageUrl: page, environment: `/api/environments/${w.installation.environment_id}` }
}

/** The events Hedgelog has stored for one distinct id, once `until` holds for them (or the wait runs out). */
const eventsOf = async (api: Api, environment: string, distinctId: string, until: (names: string[]) => boolean) => {
  let results: { event: string; elements_chain?: string; properties: Record<string, unknown> }[] = []
  for (let i = 0; i < 100; i++) {
    results = (await api.get(`${environment}/events/?distinct_id=${encodeURIComponent(distinctId)}&limit=200`)).body.results
    if (until(results.map((e) => e.event))) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return results
}

if (!chromiumAvailable()) {
  if (process.env['CI'] === 'true') {
    t.test('Chromium is installed for the browser tests', async (t) => {
      t.fail('/usr/bin/chromium is missing: .ci/run installs it with apt-get; the browser tests cannot run')
    })
  } else {
    t.test('posthog-js in a real browser', { skip: 'skipped: /usr/bin/chromium is not installed (apt-get install -y chromium); CI runs it' }, async () => {})
  }
} else {
  t.test('given a page on another origin loading posthog-js through the snippet', async (t) => {
    const s = await setup(t)
    const flag = await s.api.post(`${s.environment}/feature_flags/`, {
      key: 'beta', filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"color":"blue"}' } },
    })
    t.equal(flag.status, 201)
    const settings = await s.api.patch(`${s.environment}/`, {
      autocapture_web_vitals_opt_in: true, autocapture_exceptions_opt_in: true, capture_dead_clicks: true, heatmaps_opt_in: true,
    })
    t.equal(settings.status, 200)
    const survey = await s.api.post(`${s.environment}/surveys/`, {
      name: 'How was checkout?', type: 'popover', start_date: new Date().toISOString(),
      questions: [{ type: 'open', question: 'How was checkout?' }],
    })
    t.equal(survey.status, 201)

    const context = await launchChromium(t)
    const requests = watchRequests(context, s.host)
    const page = await context.newPage()
    await page.goto(s.pageUrl)

    await t.test('when the flags arrive, onFeatureFlags, isFeatureEnabled and the payload agree with the API', async (t) => {
      await page.waitForFunction(() => (globalThis as any).__seen.flags !== null, undefined, { timeout: 10_000 })
      const seen = await page.evaluate(() => (globalThis as any).__seen.flags)
      t.ok(seen.keys.includes('beta'))
      t.equal(seen.beta, true)
      t.same(seen.payload, { color: 'blue' })
    })

    await t.test('then the survey created through the API is offered on the page', async (t) => {
      const matching = await page.evaluate(() => new Promise<string[]>((resolve) =>
        (globalThis as any).posthog.getActiveMatchingSurveys((surveys: { name: string }[]) => resolve(surveys.map((x) => x.name)), true)))
      t.same(matching, ['How was checkout?'])
      await page.waitForSelector(`.PostHogSurvey-${survey.body.id}`, { state: 'attached', timeout: 10_000 })
    })

    await t.test('then a click is autocaptured with its elements chain, beside pageviews, custom events and identify', async (t) => {
      const anonymous = await page.evaluate(() => (globalThis as any).posthog.get_distinct_id() as string)
      await page.click('#buy')
      await page.evaluate(() => (globalThis as any).posthog.capture('checkout started', { plan: 'pro' }))
      const events = await eventsOf(s.api, s.environment, anonymous, (names) =>
        ['$pageview', '$autocapture', 'checkout started'].every((name) => names.includes(name)))
      const names = events.map((e) => e.event)
      t.ok(names.includes('$pageview'), names.join(', '))
      t.ok(names.includes('checkout started'))
      const click = events.find((e) => e.event === '$autocapture')
      t.ok(click, 'the click is an $autocapture event')
      t.match(click?.elements_chain ?? '', /button.*attr__data-attr="buy-button"/)
      t.match(click?.elements_chain ?? '', /text="Buy now"/)

      await page.evaluate(() => (globalThis as any).posthog.identify('shopper-1', { email: 'shopper@example.com' }))
      const identified = await eventsOf(s.api, s.environment, 'shopper-1', (list) => list.includes('$identify'))
      t.ok(identified.some((e) => e.event === '$identify'), 'identify reached Hedgelog')
    })

    await t.test('then the lazily loaded extensions came from /static/ and nothing the SDK asked for failed', async (t) => {
      const paths = requests.paths()
      t.ok(paths.includes('/static/array.js'))
      t.ok(paths.some((p) => p.startsWith('/array/') && p.endsWith('/config.js')), 'the remote config script was loaded')
      const flags = requests.seen.filter((r) => new URL(r.url).pathname === '/flags/')
      t.ok(flags.length > 0, 'flags were asked for')
      t.same([...new Set(flags.map((r) => `${r.method} ${new URL(r.url).search}`))], ['POST ?v=2'], 'always as POST /flags/?v=2')
      t.ok(flags.every((r) => isGzip(r.body)), 'with gzip bodies')
      for (const extension of ['surveys', 'web-vitals-with-attribution', 'exception-autocapture', 'dead-clicks-autocapture']) {
        t.ok(paths.some((p) => p.startsWith('/static/') && p.endsWith(`/${extension}.js`)), `${extension} loaded`)
      }
      t.same(requests.problems, [], 'no 4xx/5xx, failed request or CORS error')
      mkdirSync(ARTIFACTS, { recursive: true })
      await page.screenshot({ path: join(ARTIFACTS, 'posthog-js-shop.png'), fullPage: true })
    })
  })

  t.test('given an environment that turned autocapture off', async (t) => {
    const s = await setup(t)
    t.equal((await s.api.patch(`${s.environment}/`, { autocapture_opt_out: true })).status, 200)
    const context = await launchChromium(t)
    const requests = watchRequests(context, s.host)
    const page = await context.newPage()
    await page.goto(s.pageUrl)
    await page.waitForFunction(() => (globalThis as any).__loaded === true)

    await t.test('then the page loaded the remote config and posthog-js took autocapture as turned off by the server', async (t) => {
      const config = requests.seen.find((r) => new URL(r.url).pathname === `/array/${s.token}/config.js`)
      t.equal(config?.status, 200, 'the config script was requested and answered')
      t.match(await config?.response.text(), /"autocapture_opt_out":true/)
      await page.waitForFunction(() => (globalThis as any).posthog.get_property('$autocapture_disabled_server_side') !== undefined, undefined, { timeout: 10_000 })
      t.equal(await page.evaluate(() => (globalThis as any).posthog.get_property('$autocapture_disabled_server_side')), true)
    })

    await t.test('when a button is clicked, no $autocapture event is sent', async (t) => {
      const anonymous = await page.evaluate(() => (globalThis as any).posthog.get_distinct_id() as string)
      await page.click('#buy')
      await page.evaluate(() => (globalThis as any).posthog.capture('after click'))
      const events = await eventsOf(s.api, s.environment, anonymous, (names) => names.includes('after click'))
      const names = events.map((e) => e.event)
      t.ok(names.includes('after click'), 'the page did send events')
      t.notOk(names.includes('$autocapture'), names.join(', '))
      t.same(requests.problems, [])
    })

    await t.test('then, the config naming gzip-js among supportedCompression, the events went out as gzip bodies', async (t) => {
      const afterClick = await requests.next((r) => r.method === 'POST' && new URL(r.url).pathname === '/e/' && bodyText(r.body).includes('"after click"'))
      t.ok(afterClick, 'the custom event was sent to /e/')
      t.ok(isGzip(afterClick?.body ?? null), 'its body is gzip')
    })
  })
}
