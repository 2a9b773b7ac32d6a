import t from 'tap'
import { exportsWorld, FUNNEL, TRENDS } from './support/world.js'

const FILENAME = /^export-weekly-signups-\d{4}-\d\d-\d\d-\d{6}\.csv$/

t.test('a CSV of a trends insight has one row per series and a column per date label', async (t) => {
  const w = await exportsWorld(t)
  const insight = await w.insight({ name: 'Weekly signups', query: TRENDS })
  const created = await w.api.post(w.base, { export_format: 'text/csv', insight: insight.id })
  t.equal(created.status, 201, created.raw)
  t.same(Object.keys(created.body), ['id', 'dashboard', 'insight', 'export_format', 'created_at', 'has_content', 'export_context', 'filename', 'expires_after', 'exception'])
  t.match(created.body, { dashboard: null, insight: insight.id, export_format: 'text/csv', has_content: true, export_context: null, exception: null })
  t.match(created.body.filename, FILENAME)
  t.match(created.body.expires_after, /^\d{4}-\d\d-\d\dT00:00:00Z$/, 'it expires at a midnight, 26 weeks on')
  const content = await w.content(created.body.id)
  t.equal(content.status, 200)
  t.equal(content.headers['content-type'], 'text/csv')
  t.equal(content.headers['content-disposition'], `attachment; filename="${created.body.filename}"`)
  t.equal(content.text, 'series,1-Mar-2024,2-Mar-2024,3-Mar-2024\r\nsignup,1,1,0\r\n')
})

t.test('a CSV of a funnel has a row per step', async (t) => {
  const w = await exportsWorld(t)
  const insight = await w.insight({ name: 'Signup to purchase', query: FUNNEL })
  const created = await w.api.post(w.base, { export_format: 'text/csv', insight: insight.id })
  t.equal(created.status, 201, created.raw)
  const content = await w.content(created.body.id)
  const [header, first, second, end] = content.text.split('\r\n')
  t.equal(header, 'name,breakdown_value,action_id,count,median_conversion_time (seconds),average_conversion_time (seconds)')
  t.match(first, /^signup,,signup,2,/)
  t.match(second, /^purchase,,purchase,1,7200(\.0)?,7200(\.0)?$/)
  t.equal(end, '', 'the last row ends with CRLF')
})

t.test('a CSV of an events query given as the export context lists its rows, escaped as RFC 4180 asks and not neutralised', async (t) => {
  const w = await exportsWorld(t)
  const source = {
    kind: 'EventsQuery', select: ['event', 'distinct_id', 'properties.plan', 'timestamp'], after: '2024-01-01', orderBy: ['timestamp ASC'],
  }
  const created = await w.api.post(w.base, { export_format: 'text/csv', export_context: { source, filename: 'My events' } })
  t.equal(created.status, 201, created.raw)
  t.match(created.body, { insight: null, export_context: { source, filename: 'My events' }, has_content: true })
  t.match(created.body.filename, /^my-events-\d{4}-\d\d-\d\d-\d{6}\.csv$/)
  const content = await w.content(created.body.id)
  t.equal(content.text, [
    'event,distinct_id,properties.plan,timestamp',
    'signup,ann,,2024-03-01T10:00:00Z',
    'purchase,ann,"=HYPERLINK(""x"")",2024-03-01T12:00:00Z',
    'signup,bob,,2024-03-02T10:00:00Z',
    '',
  ].join('\r\n'))
})

t.test('an events query in a data table node is exported too, and its limit is kept', async (t) => {
  const w = await exportsWorld(t)
  const source = { kind: 'DataTableNode', source: { kind: 'EventsQuery', select: ['event'], after: 'all', orderBy: ['timestamp ASC'], limit: 2 } }
  const created = await w.api.post(w.base, { export_format: 'text/csv', export_context: { source } })
  t.equal(created.status, 201, created.raw)
  t.equal((await w.content(created.body.id)).text, 'event\r\nsignup\r\npurchase\r\n')
})

t.test('an export is read back, and the caller lists their own exports newest first', async (t) => {
  const w = await exportsWorld(t)
  const insight = await w.insight({ name: 'Weekly signups', query: TRENDS })
  const first = (await w.api.post(w.base, { export_format: 'text/csv', insight: insight.id })).body
  const second = (await w.api.post(w.base, { export_format: 'text/csv', export_context: { source: { kind: 'EventsQuery', select: ['event'] } } })).body
  const read = await w.api.get(`${w.base}${first.id}/`)
  t.equal(read.status, 200)
  t.same(read.body, first)
  const twin = await w.api.get(`/api/projects/${w.env}/exports/${first.id}/`)
  t.same(twin.body, first, 'the projects prefix answers the same')
  const listed = await w.api.get(w.base)
  t.same(listed.body, { count: 2, next: null, previous: null, results: [second, first] })
  t.equal((await w.api.get(`${w.base}?export_format=image/png`)).body.count, 0)
})

t.test('a query the engine refuses gives an export with its exception and no content', async (t) => {
  const w = await exportsWorld(t)
  const source = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup', math: 'hogql', math_hogql: 'sum(x)' }] }
  const created = await w.api.post(w.base, { export_format: 'text/csv', export_context: { source } })
  t.equal(created.status, 201, created.raw)
  t.match(created.body, { has_content: false, exception: String })
  t.match((await w.content(created.body.id)), { status: 404 })
})
