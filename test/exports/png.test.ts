import t from 'tap'
import { PNG } from 'pngjs'
import { createInsightPicture } from '../../src/exports/service.js'
import { queriedInsightResults } from '../../src/insights/query/insight-results.js'
import { DEFAULT_CHART_SIZE } from '../../src/charts/chart-input.js'
import { context } from '../support/world.js'
import { exportsWorld, FUNNEL, TRENDS } from './support/world.js'

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** The width and height an IHDR chunk (the first, right after the signature) states. */
const ihdrSize = (bytes: Buffer) => ({ type: bytes.subarray(12, 16).toString('latin1'), width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) })

t.test('a PNG of an insight is its chart at the default picture size', async (t) => {
  const w = await exportsWorld(t)
  const insight = await w.insight({ name: 'Weekly signups', query: TRENDS })
  const created = await w.api.post(w.base, { export_format: 'image/png', insight: insight.id })
  t.equal(created.status, 201, created.raw)
  t.match(created.body, { export_format: 'image/png', insight: insight.id, has_content: true, exception: null })
  t.match(created.body.filename, /^export-weekly-signups-\d{4}-\d\d-\d\d-\d{6}\.png$/)
  const content = await w.content(created.body.id)
  t.equal(content.status, 200)
  t.equal(content.headers['content-type'], 'image/png')
  t.equal(content.headers['content-disposition'], `attachment; filename="${created.body.filename}"`)
  t.ok(content.bytes.subarray(0, 8).equals(SIGNATURE), 'the PNG signature')
  t.same(ihdrSize(content.bytes), { type: 'IHDR', ...DEFAULT_CHART_SIZE })
  const image = PNG.sync.read(content.bytes)
  t.same({ width: image.width, height: image.height }, DEFAULT_CHART_SIZE, 'it decodes whole')
  const colours = new Set<number>()
  for (let i = 0; i < image.data.length; i += 4 * 97) colours.add(image.data.readUInt32BE(i))
  t.ok(colours.size > 2, 'something is drawn on it')
})

t.test('a picture for a delivery is made through the same command, and a funnel is drawn too', async (t) => {
  const w = await exportsWorld(t)
  const funnel = await w.insight({ name: 'Signup to purchase', query: FUNNEL })
  const environment = (await w.models.get('environments', String(w.env)))!
  const doc = (await w.models.get('insights', String(funnel.id)))!
  const deps = { log: w.log, models: w.models, insightResults: queriedInsightResults(w.models) }
  const asset = await createInsightPicture(deps, environment, doc, context(w.installation.user_uuid))
  t.match(asset, { export_format: 'image/png', insight: funnel.id, environment_id: w.env, exception: null })
  const read = await w.api.get(`${w.base}${asset.id}/`)
  t.match(read.body, { id: asset.id, has_content: true, filename: asset.filename })
  const bytes = (await w.content(asset.id)).bytes
  t.same(ihdrSize(bytes), { type: 'IHDR', ...DEFAULT_CHART_SIZE })
  t.same((await w.api.get(w.base)).body.results.map((one: { id: number }) => one.id), [asset.id], 'it is listed as the caller\'s')
})
