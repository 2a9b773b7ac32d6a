import t from 'tap'
import { randomBytes } from 'node:crypto'
import { exportedAssetDecider } from '../../src/exports/decider.js'
import { exportedAssetStream } from '../../src/exports/events.js'
import { exportContent } from '../../src/exports/service.js'
import { handleCommand } from '../../src/kernel/handle-command.js'
import { collect } from '../support/collect.js'
import { context } from '../support/world.js'
import { exportsWorld, TRENDS } from './support/world.js'

t.test('rebuilding the exports read model from the log gives the same exports and content', async (t) => {
  const w = await exportsWorld(t)
  const insight = await w.insight({ name: 'Weekly signups', query: TRENDS })
  const csv = (await w.api.post(w.base, { export_format: 'text/csv', insight: insight.id })).body
  // Content larger than one append is written in parts and committed by one event.
  const large = randomBytes(700 * 1024)
  const created = await handleCommand(w.log, exportedAssetDecider, exportedAssetStream(9000), {
    type: 'CreateExportedAsset',
    data: {
      assetId: 9000, environmentId: w.env, exportFormat: 'image/png', dashboardId: null, insightId: insight.id, exportContext: null,
      filename: 'export-large.png', expiresAfter: '2100-01-01T00:00:00.000Z', exception: null, createdBy: w.installation.user_uuid, at: new Date().toISOString(),
    },
    content: large,
  }, context())
  const stream = await collect(w.log.readStream(exportedAssetStream(9000)))
  t.same(stream.map((event) => event.type), ['ChangeCommitted'], 'the large export is one commit of its parts')
  t.ok(await w.models.waitFor(created.position!, ['exported_assets']))

  const urls = [`${w.base}${csv.id}/`, `${w.base}9000/`, w.base]
  const snapshot = async () => ({
    bodies: await Promise.all(urls.map(async (url) => (await w.api.get(url)).raw)),
    csv: (await w.content(csv.id)).text,
    large: (await w.content(9000)).bytes,
  })
  const before = await snapshot()
  t.ok(before.large.equals(large), 'the large content reads back whole')
  t.match(JSON.parse(before.bodies[1]!), { has_content: true, filename: 'export-large.png' })
  await w.projections.rebuild('exported_assets')
  t.equal((await w.registry.read('exported_assets'))?.active.build, 2, 'served from its new build')
  const after = await snapshot()
  t.same(after.bodies, before.bodies)
  t.equal(after.csv, before.csv)
  t.ok(after.large.equals(large))
  const doc = await w.models.get('exported_assets', '9000')
  t.ok((await exportContent(w.models, doc!)).equals(large))
})
