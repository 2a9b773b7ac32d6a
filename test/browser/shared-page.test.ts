import t, { type Test } from 'tap'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { SERIES_COLORS } from '../../src/charts/palette.js'
import { client } from '../support/client.js'
import { chromiumAvailable, launchChromium, servePage } from '../support/browser.js'
import { tempDir } from '../support/temp.js'
import { queryWorld, type SentEvent } from '../insights/support/query-world.js'
import { decodePng, inkIn, pixelsOf } from '../charts/support/pictures.js'

const DAY = 86_400_000
const QUERIES = {
  trends: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }], interval: 'day', dateRange: { date_from: '-7d' } },
  funnel: {
    kind: 'FunnelsQuery', dateRange: { date_from: '-7d' },
    series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }],
  },
  retention: { kind: 'RetentionQuery', retentionFilter: { period: 'Day', totalIntervals: 7 } },
} as const

/** Four people over three days: every one views, three sign up, two buy; two come back the next day, one the day after. */
const events = (): SentEvent[] => {
  const start = Date.now() - 3 * DAY
  const at = (day: number, minute: number) => new Date(start + day * DAY + minute * 60_000).toISOString()
  const sent: SentEvent[] = []
  for (const [i, person] of ['ann', 'bob', 'cy', 'dee'].entries()) {
    sent.push({ event: '$pageview', distinctId: person, at: at(0, i) })
    if (i < 3) sent.push({ event: 'signup', distinctId: person, at: at(0, 10 + i) })
    if (i < 2) sent.push({ event: 'purchase', distinctId: person, at: at(0, 20 + i) })
    if (i < 2) sent.push({ event: '$pageview', distinctId: person, at: at(1, i) })
    if (i < 1) sent.push({ event: '$pageview', distinctId: person, at: at(2, i) })
  }
  return sent
}

type Shared = { dashboard: { tiles: { insight: { id: number; name: string; result: any } | null }[] } }

/** A dashboard of a trends, a funnel and a retention insight over captured events, shared; its JSON view once every tile has results. */
const setup = async (t: Test) => {
  const w = await queryWorld(t)
  await w.send(events())
  const api = client(w.app, w.bearer(w.key.value))
  const environment = `/api/environments/${w.environmentId}`
  const board = await api.post(`${environment}/dashboards/`, { name: 'Shop funnel', description: 'What happened this week' })
  const ids: Record<keyof typeof QUERIES, number> = { trends: 0, funnel: 0, retention: 0 }
  for (const [name, source] of Object.entries(QUERIES) as [keyof typeof QUERIES, unknown][]) {
    const created = await api.post(`${environment}/insights/`, { name: `Shop ${name}`, query: { kind: 'InsightVizNode', source }, dashboards: [board.body.id] })
    t.equal(created.status, 201, name)
    ids[name] = created.body.id
  }
  await api.patch(`${environment}/dashboards/${board.body.id}/`, { tiles: [{ text: { body: 'Numbers for the <b>shop</b>' } }] })
  const token = (await api.patch(`${environment}/dashboards/${board.body.id}/sharing/`, { enabled: true })).body.access_token as string
  // Shared views read results lazily: the first reads start the runs, later ones show them.
  let shared: Shared | undefined
  for (let i = 0; i < 100; i++) {
    shared = (await client(w.app, {}).get(`/shared/${token}`)).body as Shared
    if (shared.dashboard.tiles.every((tile) => tile.insight === null || tile.insight.result !== null)) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const insightOf = (id: number) => shared!.dashboard.tiles.find((tile) => tile.insight?.id === id)!.insight!
  return { ...w, host: w.address, token, ids, insightOf }
}

if (!chromiumAvailable()) {
  if (process.env['CI'] === 'true') {
    t.test('Chromium is installed for the browser tests', async (t) => {
      t.fail('/usr/bin/chromium is missing: .ci/run installs it with apt-get; the browser tests cannot run')
    })
  } else {
    t.test('a shared dashboard in a real browser', { skip: 'skipped: /usr/bin/chromium is not installed (apt-get install -y chromium); CI runs it' }, async () => {})
  }
} else {
  t.test('given a shared dashboard of a trends, a funnel and a retention insight, opened in Chromium', async (t) => {
    const s = await setup(t)
    // A page on another site that frames both addresses; served before Chromium starts, so it is closed after it.
    const site = await servePage(t, `<!doctype html><html><body>
<iframe id="embedded" src="${s.host}/embedded/${s.token}" width="900" height="500"></iframe>
<iframe id="shared" name="shared" src="${s.host}/shared/${s.token}" width="900" height="500"></iframe>
</body></html>`)
    const context = await launchChromium(t)
    const requested: string[] = []
    const problems: string[] = []
    context.on('request', (request) => requested.push(request.url()))
    context.on('requestfailed', (request) => problems.push(`failed ${request.url()}: ${request.failure()?.errorText ?? ''}`))
    const page = await context.newPage()
    page.on('console', (message) => problems.push(`console ${message.type()}: ${message.text()}`))
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    // Playwright's init scripts are not the page's, so the policy does not stop this listener.
    await page.addInitScript(() => {
      const seen: string[] = []
      const page = globalThis as any
      page.__violations = seen
      page.document.addEventListener('securitypolicyviolation', (event: any) => seen.push(`${event.violatedDirective} ${event.blockedURI}`))
    })
    const response = await page.goto(`${s.host}/shared/${s.token}`)
    t.equal(response?.status(), 200)
    t.equal(response?.headers()['content-type'], 'text/html; charset=utf-8', 'the browser\'s Accept got the page')

    await t.test('then each insight tile has its chart drawn, in the series colours', async (t) => {
      const dir = tempDir(t, 'hedgelog-shared-page-')
      const screenshot = join(dir, 'shared-dashboard.png')
      await page.screenshot({ path: screenshot, fullPage: true })
      t.comment(`screenshot: ${screenshot}`)
      t.ok(decodePng(await page.screenshot({ fullPage: true })).width > 0)
      for (const [name, id] of Object.entries(s.ids)) {
        const tile = page.locator(`article[data-insight-id="${id}"]`)
        t.equal(await tile.locator('h2').innerText(), `Shop ${name}`)
        t.match(await tile.locator('.refreshed').innerText(), /^Last refreshed \d+ \w+ \d{4}, \d\d:\d\d UTC$/)
        const svg = tile.locator('figure[data-chart] > svg')
        t.equal(await svg.count(), 1, `${name}: one chart`)
        const box = await svg.boundingBox()
        t.ok(box !== null && box.width > 100 && box.height > 50, `${name}: the chart has a size (${box?.width} × ${box?.height})`)
        const shot = await svg.screenshot()
        writeFileSync(join(dir, `${name}.png`), shot)
        const picture = decodePng(shot)
        const whole = { left: 0, top: 0, right: picture.width, bottom: picture.height }
        const coloured = SERIES_COLORS.reduce((sum, colour) => sum + pixelsOf(picture, colour, whole), 0)
        t.ok(coloured > 40, `${name}: ${coloured} pixels in series colours`)
        t.ok(inkIn(picture, whole) > coloured, `${name}: axes, labels and title drawn beside the series`)
      }
    })

    await t.test('then the figure under each chart is the number the JSON API gives', async (t) => {
      const first = async (id: number) => {
        const cell = page.locator(`article[data-insight-id="${id}"] table.figures tbody td[data-value]`).first()
        return { value: Number(await cell.getAttribute('data-value')), text: await cell.innerText() }
      }
      const trends = s.insightOf(s.ids.trends).result[0]
      t.same(await first(s.ids.trends), { value: trends.count, text: String(trends.count) }, 'the trends series total')
      t.equal(trends.count, 7, 'seven pageviews')
      const funnel = s.insightOf(s.ids.funnel).result
      t.same(await first(s.ids.funnel), { value: funnel[0].count, text: String(funnel[0].count) }, 'the funnel\'s first step')
      t.same(funnel.map((step: { count: number }) => step.count), [4, 3, 2])
      const retention = s.insightOf(s.ids.retention).result[0].values[0].count
      t.same(await first(s.ids.retention), { value: retention, text: String(retention) }, 'the first cohort\'s size')
      t.match(await page.locator('.text-tile').innerText(), 'Numbers for the <b>shop</b>', 'the text card as typed')
    })

    await t.test('then nothing was asked of another host and the policy refused nothing', async (t) => {
      t.same(requested.filter((url) => !url.startsWith(`${s.host}/`)), [], 'every request went to Hedgelog')
      t.same(requested.length, 1, 'the page needs nothing but itself')
      t.same(problems, [], 'no console message, failed request or page error')
      t.same(await page.evaluate(() => (globalThis as any).__violations), [], 'no CSP violation')
    })

    await t.test('when something puts a style attribute of its own on the page, the policy refuses it', async (t) => {
      await page.evaluate(() => {
        const document = (globalThis as any).document
        const injected = document.createElement('div')
        injected.setAttribute('style', 'color: red')
        document.body.append(injected)
      })
      await page.waitForFunction(() => (globalThis as any).__violations.length > 0, undefined, { timeout: 5_000 })
      t.match(await page.evaluate(() => (globalThis as any).__violations), [/^style-src-attr /])
    })

    await t.test('when a page on another site frames both addresses, /embedded/ shows and /shared/ is refused', async (t) => {
      const outer = await context.newPage()
      await outer.goto(site)
      const embedded = outer.frameLocator('#embedded')
      t.equal(await embedded.locator('h1').innerText(), 'Shop funnel')
      t.equal(await embedded.locator('figure[data-chart] > svg').count(), 3, 'with its three charts')
      const shared = outer.frames().find((frame) => frame.name() === 'shared')
      t.match(shared?.url(), /^chrome-error:/, 'Chromium put its error page in the /shared/ frame')
      await outer.close()
    })
  })
}
