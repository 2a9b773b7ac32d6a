import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { DEFAULT_CHART_SIZE } from '../../src/charts/chart-input.js'
import { isPublicUrl } from '../../src/delivery/addresses.js'
import type { DeliveryJobDeps } from '../../src/delivery/delivery-job.js'
import type { PictureLink, RenderPicture } from '../../src/delivery/pictures.js'
import { notComputedResults, type InsightResults } from '../../src/insights/results.js'
import { smtpMailer } from '../../src/mail/mailer.js'
import { httpReceiver } from '../support/receiver.js'
import { smtpServer } from '../support/smtp.js'
import { greyPng, leaves, parseMime, pngDimensions } from './mime.js'
import { PUBLIC_URL, deliveryWorld } from './support.js'

const TRENDS = {
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup' }], interval: 'day', trendsFilter: { display: 'ActionsLineGraph' } },
}
const DAYS = ['2027-01-01', '2027-01-02', '2027-01-03']

/** Every insight's result: one series of signups over three days. */
const results: InsightResults = async (environment, insight) => ({
  ...(await notComputedResults(environment, insight, 'blocking')),
  result: [{ label: 'signup', data: [3, 5, 8], labels: ['1-Jan-2027', '2-Jan-2027', '3-Jan-2027'], days: DAYS, count: 16 }],
  last_refresh: '2027-01-05T09:00:00Z',
  resolved_date_range: { date_from: '2027-01-01T00:00:00Z', date_to: '2027-01-03T23:59:59Z' },
})

/** Draws a small grey PNG whose width tells which insight it shows; throws for insights named in `failing`. */
const renderer = (failing: readonly string[] = []) => {
  const drawn: string[] = []
  const render: RenderPicture = async (input) => {
    if (failing.includes(input.name)) throw new Error(`cannot draw ${input.name}`)
    drawn.push(input.name)
    return greyPng(400 + drawn.length, 225)
  }
  return { render, drawn }
}

const link: PictureLink = async (insight) => `${PUBLIC_URL}/exports/insight-${insight.id}.png?token=signed`

/** A delivery world whose dashboard holds `count` trends insights, named "Signups 1"… in tile order. */
const dashboardWith = async (t: Test, count: number, options: Parameters<typeof deliveryWorld>[1] = {}) => {
  const w = await deliveryWorld(t, options)
  const ids: number[] = []
  for (let i = 1; i <= count; i++) {
    const created = await w.api.post(`/api/environments/${w.environmentId}/insights/`, { name: `Signups ${i}`, query: TRENDS, dashboards: [w.dashboard.id] })
    if (created.status !== 201) throw new Error(created.raw)
    ids.push(created.body.id)
  }
  return { ...w, insightIds: ids }
}

const mailWorld = async (t: Test, count: number) => {
  const smtp = await smtpServer(t)
  const mailer = smtpMailer(smtp.url, 'Hedgelog <hedgelog@example.com>')
  t.teardown(() => mailer.close())
  return { smtp, ...(await dashboardWith(t, count, { mailer })) }
}

t.test('an e-mail carries one inline picture per insight, at most six, in an HTML body with the text as its alternative', async (t) => {
  const w = await mailWorld(t, 7)
  await w.api.patch(`/api/environments/${w.environmentId}/dashboards/${w.dashboard.id}/`, { name: '<script>alert(1)</script>', tiles: [{ text: { body: 'Look at <b>this</b> & that' } }] })
  await w.api.patch(`/api/environments/${w.environmentId}/insights/${w.insightIds[0]}/`, { name: 'Signups "<i>" & co' })
  const id = await w.subscribe({ target_type: 'email', target_value: 'ann@example.com', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const { render, drawn } = renderer()
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results, renderPicture: render })
  t.equal(drawn.length, 6, 'six pictures drawn for seven insights')
  t.equal(w.smtp.received.length, 1)
  const message = parseMime(w.smtp.received[0]!.data)
  t.match(message.headers['content-type'], /^multipart\//)
  const parts = leaves(message)
  const text = parts.find((part) => part.headers['content-type']?.startsWith('text/plain'))
  const html = parts.find((part) => part.headers['content-type']?.startsWith('text/html'))
  t.ok(text, 'a plain-text alternative')
  t.ok(html, 'an HTML body')
  t.match(text!.body.toString('utf8').replace(/\r\n/g, '\n'), /Signups 2\n {4}Series +1-Jan-2027 +2-Jan-2027 +3-Jan-2027 +Total\n {4}signup +3 +5 +8 +16/, 'the text keeps its tables')
  const images = parts.filter((part) => part.headers['content-type']?.startsWith('image/png'))
  t.equal(images.length, 6, 'one picture per delivered insight')
  const body = html!.body.toString('utf8')
  images.forEach((image, i) => {
    const cid = /^<(.+)>$/.exec(image.headers['content-id'] ?? '')?.[1]
    t.ok(cid, `picture ${i + 1} has a Content-ID`)
    t.ok(body.includes(`src="cid:${cid}"`), `the HTML shows picture ${i + 1} inline`)
    t.same(pngDimensions(image.body), { width: 401 + i, height: 225 }, `picture ${i + 1} is the PNG drawn for insight ${i + 1}`)
    t.match(image.headers['content-disposition'], /^inline/)
  })
  const order = ['Signups 2', 'Signups 3', 'Signups 4', 'Signups 5', 'Signups 6'].map((name) => body.indexOf(`>${name}</a>`))
  t.same([...order].sort((a, b) => a - b), order, 'insights in tile order')
  t.notOk(body.includes('Signups 7'), 'the seventh insight is left out')
  t.match(body, 'Showing 6 of 7 insights.')
  t.notOk(body.includes('<script>'), 'the dashboard\'s name never stands raw in the HTML')
  t.match(body, '&lt;script&gt;alert(1)&lt;/script&gt;')
  t.match(body, 'Signups &quot;&lt;i&gt;&quot; &amp; co')
  t.match(body, 'Look at &lt;b&gt;this&lt;/b&gt; &amp; that')
  t.notOk(body.includes('<i>') || body.includes('<b>'), 'nor do insight names and card texts')
  t.match(body, `href="${PUBLIC_URL}/project/${w.environmentId}/dashboard/${w.dashboard.id}"`, 'the dashboard\'s link')
  t.match(body, `href="${PUBLIC_URL}/project/${w.environmentId}/dashboard/${w.dashboard.id}/subscriptions/${id}"`, 'where to manage the subscription')
  t.ok(body.indexOf(`/dashboard/${w.dashboard.id}"`) < body.indexOf('cid:'), 'the name and link come above the pictures')
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'delivered', recipients: ['ann@example.com'] }])
})

t.test('by default the pictures are drawn by the charts\' renderer: six PNGs of a chart\'s size for a dashboard of seven', async (t) => {
  const w = await mailWorld(t, 7)
  await w.subscribe({ target_type: 'email', target_value: 'ann@example.com', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results })
  const parts = leaves(parseMime(w.smtp.received[0]!.data))
  const images = parts.filter((part) => part.headers['content-type']?.startsWith('image/png'))
  t.equal(images.length, 6)
  const body = parts.find((part) => part.headers['content-type']?.startsWith('text/html'))!.body.toString('utf8')
  for (const image of images) {
    t.same(pngDimensions(image.body), DEFAULT_CHART_SIZE, 'a valid PNG of 800 × 450')
    t.ok(body.includes(`src="cid:${/^<(.+)>$/.exec(image.headers['content-id'] ?? '')?.[1]}"`), 'shown inline')
  }
  t.same(w.warnings, [], 'nothing failed')
})

t.test('an insight whose picture cannot be drawn goes with its table; the delivery is delivered', async (t) => {
  const w = await mailWorld(t, 3)
  const id = await w.subscribe({ target_type: 'email', target_value: 'ann@example.com', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const { render } = renderer(['Signups 2'])
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results, renderPicture: render })
  const parts = leaves(parseMime(w.smtp.received[0]!.data))
  t.equal(parts.filter((part) => part.headers['content-type']?.startsWith('image/png')).length, 2, 'the other two have their pictures')
  const body = parts.find((part) => part.headers['content-type']?.startsWith('text/html'))!.body.toString('utf8')
  const second = body.slice(body.indexOf('>Signups 2</a>'), body.indexOf('>Signups 3</a>'))
  t.notOk(second.includes('cid:'), 'the insight without a picture')
  t.match(second, /<table[^>]*>.*Series.*1-Jan-2027.*<td[^>]*>16<\/td>/s, 'shows its table')
  t.match(w.warnings, [{ fields: { insight: w.insightIds[1], err: 'cannot draw Signups 2' }, message: /could not be drawn/ }])
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'delivered' }])
})

t.test('when no picture can be drawn, the e-mail still goes, with its tables', async (t) => {
  const w = await mailWorld(t, 2)
  const id = await w.subscribe({ target_type: 'email', target_value: 'ann@example.com', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const { render } = renderer(['Signups 1', 'Signups 2'])
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results, renderPicture: render })
  const parts = leaves(parseMime(w.smtp.received[0]!.data))
  t.equal(parts.filter((part) => part.headers['content-type']?.startsWith('image/')).length, 0)
  t.match(parts.find((part) => part.headers['content-type']?.startsWith('text/plain'))!.body.toString('utf8').replace(/\r\n/g, '\n'), /Signups 1\n {4}Series/)
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'delivered' }])
})

t.test('Slack with a public address: the main message has the first picture, a note, a divider and two buttons; the rest follow', async (t) => {
  const w = await dashboardWith(t, 7)
  const slack = await httpReceiver(t)
  await w.api.patch(`/api/environments/${w.environmentId}/`, { slack_incoming_webhook: `${slack.url}/services/T000/B000/XXX` })
  const id = await w.subscribe({ target_type: 'slack', target_value: 'C0123|#growth', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results, renderPicture: renderer().render, pictureLink: link })
  const messages = slack.received.map((request) => JSON.parse(request.body))
  t.equal(messages.length, 7, 'the main message, five more pictures and the note on what was left out')
  const [main, ...rest] = messages
  const dashboardUrl = `${PUBLIC_URL}/project/${w.environmentId}/dashboard/${w.dashboard.id}`
  t.equal(main.channel, 'C0123|#growth')
  t.match(main.text, 'Weekly numbers', 'the text stays as the fallback')
  t.match(main.blocks, [
    { type: 'section', text: { type: 'mrkdwn', text: `*Numbers*: the dashboard *<${dashboardUrl}|Weekly numbers>*, sent every day.` } },
    { type: 'image', image_url: `${PUBLIC_URL}/exports/insight-${w.insightIds[0]}.png?token=signed`, alt_text: 'Signups 1' },
    { type: 'section', text: { type: 'mrkdwn', text: /more insights/ } },
    { type: 'divider' },
    {
      type: 'actions',
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'View in Hedgelog' }, url: dashboardUrl },
        { type: 'button', text: { type: 'plain_text', text: 'Manage Subscription' }, url: `${dashboardUrl}/subscriptions/${id}` },
      ],
    },
  ])
  t.equal(main.blocks.length, 5)
  rest.slice(0, 5).forEach((message, i) => {
    t.equal(message.channel, 'C0123|#growth')
    t.same(message.blocks, [{ type: 'image', image_url: `${PUBLIC_URL}/exports/insight-${w.insightIds[i + 1]}.png?token=signed`, alt_text: `Signups ${i + 2}` }])
  })
  t.match(rest[5].blocks, [{ type: 'section', text: { text: `Showing 6 of 7 insights. <${dashboardUrl}|View the rest in Hedgelog>` } }])
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'delivered', target_type: 'slack' }])
})

t.test('Slack with one insight has no note on more; an insight without a picture shows its table in its place', async (t) => {
  const w = await dashboardWith(t, 2)
  const slack = await httpReceiver(t)
  await w.api.patch(`/api/environments/${w.environmentId}/`, { slack_incoming_webhook: `${slack.url}/hook` })
  await w.subscribe({ target_type: 'slack', target_value: '#growth', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results, renderPicture: renderer(['Signups 2']).render, pictureLink: link })
  const [main, second] = slack.received.map((request) => JSON.parse(request.body))
  t.equal(slack.received.length, 2)
  t.match(main.blocks[1], { type: 'image', alt_text: 'Signups 1' })
  t.match(second.blocks, [{ type: 'section', text: { type: 'mrkdwn', text: /^\*<.+\|Signups 2>\*\n```Series +1-Jan-2027/ } }])

  const single = await deliveryWorld(t)
  const receiver = await httpReceiver(t)
  await single.api.patch(`/api/environments/${single.environmentId}/`, { slack_incoming_webhook: `${receiver.url}/hook` })
  const insight = (await single.api.post(`/api/environments/${single.environmentId}/insights/`, { name: 'Signups', query: TRENDS })).body
  const subscription = await single.api.post(single.base, { insight: insight.id, dashboard: null, target_type: 'slack', target_value: '#growth', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  t.equal(subscription.status, 201, subscription.raw)
  await single.runAt('2027-01-05T09:00:00Z', { ...single.deps, insightResults: results, renderPicture: renderer().render, pictureLink: link })
  t.equal(receiver.received.length, 1, 'one message for one insight')
  const blocks = JSON.parse(receiver.received[0]!.body).blocks
  t.same(blocks.map((block: { type: string }) => block.type), ['section', 'image', 'divider', 'actions'], 'no note pointing to more')
  t.match(blocks[3].elements[1].url, `/insights/${insight.short_id}/subscriptions/${subscription.body.id}`)
})

t.test('Slack gets text only when the public address is not reachable from the internet', async (t) => {
  const w = await dashboardWith(t, 2)
  const slack = await httpReceiver(t)
  await w.api.patch(`/api/environments/${w.environmentId}/`, { slack_incoming_webhook: `${slack.url}/hook` })
  await w.subscribe({ target_type: 'slack', target_value: '#growth', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const { render, drawn } = renderer()
  const asked: number[] = []
  const counting: PictureLink = async (insight, png) => { asked.push(insight.id); return link(insight, png) }
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, publicUrl: 'http://localhost:8000', insightResults: results, renderPicture: render, pictureLink: counting })
  t.equal(slack.received.length, 1)
  const body = JSON.parse(slack.received[0]!.body)
  t.same(Object.keys(body).sort(), ['channel', 'text', 'unfurl_links'], 'one text message, no blocks')
  t.match(body.text, /Signups 1\n```\nSeries/)
  t.same([drawn, asked], [[], []], 'no picture drawn, no link made')
})

t.test('Slack gets text only when no link to a picture can be made', async (t) => {
  const w = await dashboardWith(t, 1)
  const slack = await httpReceiver(t)
  await w.api.patch(`/api/environments/${w.environmentId}/`, { slack_incoming_webhook: `${slack.url}/hook` })
  await w.subscribe({ target_type: 'slack', target_value: '#growth', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results, renderPicture: renderer().render, pictureLink: async () => null })
  t.equal(slack.received.length, 1)
  t.notOk('blocks' in JSON.parse(slack.received[0]!.body))
})

t.test('a webhook\'s insights carry picture_url when links to pictures are made', async (t) => {
  const w = await dashboardWith(t, 2)
  const receiver = await httpReceiver(t)
  await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const withLinks: DeliveryJobDeps = { ...w.deps, insightResults: results, renderPicture: renderer(['Signups 2']).render, pictureLink: link }
  await w.runAt('2027-01-05T09:00:00Z', withLinks)
  const payload = JSON.parse(receiver.received[0]!.body)
  t.match(payload.insights, [
    { name: 'Signups 1', picture_url: `${PUBLIC_URL}/exports/insight-${w.insightIds[0]}.png?token=signed`, table: { columns: ['Series', '1-Jan-2027', '2-Jan-2027', '3-Jan-2027', 'Total'] } },
    { name: 'Signups 2' },
  ])
  t.notOk('picture_url' in payload.insights[1], 'an insight whose picture could not be drawn has no link')
  t.same(Object.keys(payload.insights[0]).sort(), ['error', 'id', 'kind', 'last_refresh', 'name', 'picture_url', 'result', 'short_id', 'table', 'url'])
  await w.runAt('2027-01-06T09:00:00Z', { ...w.deps, insightResults: results, renderPicture: renderer().render, pictureLink: null })
  t.notOk('picture_url' in JSON.parse(receiver.received[1]!.body).insights[0], 'no link without a link maker')
})

/** Opens a picture link as Slack or a webhook's receiver would, through the app (the public address is not this test's). */
const opened = async (w: Awaited<ReturnType<typeof deliveryWorld>>, url: string) => {
  const response = await w.app.inject({ method: 'GET', url: url.slice(PUBLIC_URL.length) })
  return { status: response.statusCode, type: response.headers['content-type'], png: response.rawPayload }
}

t.test('by default the links are signed links to PNG exports of the insights, which open without an API key', async (t) => {
  const w = await dashboardWith(t, 2)
  const slack = await httpReceiver(t)
  const hook = await httpReceiver(t)
  await w.api.patch(`/api/environments/${w.environmentId}/`, { slack_incoming_webhook: `${slack.url}/hook` })
  await w.subscribe({ target_type: 'slack', target_value: '#growth', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.subscribe({ target_type: 'webhook', target_value: hook.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results })
  t.same(w.warnings, [], 'every picture was drawn and linked')
  const [main, second] = slack.received.map((request) => JSON.parse(request.body))
  const links = [main.blocks[1].image_url, second.blocks[0].image_url, ...JSON.parse(hook.received[0]!.body).insights.map((one: { picture_url: string }) => one.picture_url)]
  t.equal(links.length, 4)
  for (const url of links) {
    t.match(url, new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}/exporter/[^/?]+\\.png\\?token=[\\w-]+\\.[\\w-]+\\.[\\w-]+$`), 'a signed link under the public address')
    const picture = await opened(w, url)
    t.equal(picture.status, 200)
    t.match(picture.type, /^image\/png/)
    t.same(pngDimensions(picture.png), DEFAULT_CHART_SIZE, 'the insight\'s picture')
  }
  const forged = await opened(w, `${links[0].replace(/token=.*$/, 'token=')}${'x'.repeat(10)}.${'y'.repeat(10)}.${'z'.repeat(10)}`)
  t.equal(forged.status, 403, 'a made-up token opens nothing')
})

t.test('which public addresses Slack can fetch pictures from', async (t) => {
  for (const url of ['https://hedgelog.example.com', 'http://analytics.internal:8000', 'https://8.8.8.8/', 'http://[2606:4700::1111]:8000']) t.ok(isPublicUrl(url), url)
  for (const url of ['http://localhost:8000', 'http://app.localhost', 'http://127.0.0.1:8000', 'http://10.1.2.3', 'http://192.168.0.5:80', 'http://[::1]:8000', 'http://[fd00::1]/', 'not a url']) {
    t.notOk(isPublicUrl(url), url)
  }
})

/** Slack's Web API as a bot meets it: each `chat.postMessage` is kept and answered with its channel id and a new timestamp. */
const slackApi = async (t: Test, refuse: string | null = null) => {
  const posted: Array<{ path: string; authorization: string | undefined; body: Record<string, unknown> }> = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      posted.push({ path: request.url ?? '', authorization: request.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString()) })
      const answer = refuse ? { ok: false, error: refuse } : { ok: true, channel: 'C0123', ts: `1767600000.00010${posted.length}` }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, posted }
}

t.test('Slack as a bot: the main message in the channel, the other pictures and the note as replies in its thread', async (t) => {
  const api = await slackApi(t)
  const w = await dashboardWith(t, 7, { slackBot: { token: 'xoxb-1-test', apiUrl: api.url } })
  const id = await w.subscribe({ target_type: 'slack', target_value: 'C0123|#growth', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results, renderPicture: renderer().render, pictureLink: link })
  t.equal(api.posted.length, 7, 'the main message, five more pictures and the note on what was left out')
  t.ok(api.posted.every((call) => call.path === '/api/chat.postMessage' && call.authorization === 'Bearer xoxb-1-test'), 'each posted with chat.postMessage as the bot')
  const [main, ...replies] = api.posted.map((call) => call.body)
  t.equal(main!.channel, 'C0123', 'the channel is the part of the target before |')
  t.notOk('thread_ts' in main!)
  t.match(main!.blocks, [{ type: 'section' }, { type: 'image', alt_text: 'Signups 1' }, { type: 'section', text: { text: /thread/ } }, { type: 'divider' }, { type: 'actions' }])
  replies.forEach((reply) => t.match(reply, { channel: 'C0123', thread_ts: '1767600000.000101' }, 'a reply in the main message\'s thread'))
  t.same(replies.slice(0, 5).map((reply) => (reply.blocks as Array<{ alt_text?: string }>)[0]!.alt_text), ['Signups 2', 'Signups 3', 'Signups 4', 'Signups 5', 'Signups 6'])
  t.match(replies[5]!.blocks, [{ type: 'section', text: { text: /Showing 6 of 7 insights/ } }])
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'delivered', target_type: 'slack' }])
})

t.test('Slack as a bot: a channel Slack does not know refuses the delivery, which is not retried', async (t) => {
  const api = await slackApi(t, 'channel_not_found')
  const w = await dashboardWith(t, 1, { slackBot: { token: 'xoxb-1-test', apiUrl: api.url } })
  const id = await w.subscribe({ target_type: 'slack', target_value: 'C9999', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z', { ...w.deps, insightResults: results, renderPicture: renderer().render, pictureLink: link })
  t.equal(api.posted.length, 1)
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'failed', attempts: 1, reason: /channel_not_found/ }])
  await w.runAt('2027-01-05T11:00:00Z', { ...w.deps, insightResults: results, renderPicture: renderer().render, pictureLink: link })
  t.equal(api.posted.length, 1, 'no attempt follows a refusal')
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'failed', attempts: 1 }])
})
