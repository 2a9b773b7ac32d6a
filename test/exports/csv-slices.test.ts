import t from 'tap'
import fc from 'fast-check'
import { csvRowSource } from '../../src/exports/csv-rows.js'
import { csvBytes, csvText, tablize } from '../../src/exports/csv-text.js'

const identity = (row: unknown): Record<string, unknown> => row as Record<string, unknown>

const cell = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null))
const value = fc.oneof(cell, fc.dictionary(fc.constantFrom('x', 'y', 'z'), cell, { maxKeys: 3 }), fc.array(cell, { maxLength: 3 }))
const row = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd.e', 'count() -- Total'), value, { maxKeys: 4 })
const header = fc.option(fc.subarray(['a', 'b', 'c', 'd', 'zz']), { nil: null })

t.test('the sliced writer writes what the table writer writes, for any rows and header', async (t) => {
  await fc.assert(fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 30 }), header, async (rows, asked) => {
    const sliced = (await csvBytes(rows, identity, asked)).toString('utf8')
    return sliced === csvText(tablize(rows, asked))
  }), { numRuns: 500 })
  t.pass('500 random tables written alike')
})

t.test('writing a 200,000-row export lets the event loop go on', async (t) => {
  const columns = ['uuid', 'event', 'properties', 'timestamp']
  const results = Array.from({ length: 200_000 }, (_, i) => [
    `0190${String(i).padStart(8, '0')}`, i % 3 === 0 ? 'signed up' : 'pageview',
    { $browser: i % 2 === 0 ? 'Chrome' : 'Firefox', plan: i % 5 === 0 ? 'pro, yearly' : 'free', n: i }, `2024-03-01T00:00:${String(i % 60).padStart(2, '0')}Z`,
  ])
  const rows = csvRowSource({ results, columns, types: ['String', 'String', 'String', 'DateTime'] })
  const began = performance.now()
  const atOnce = csvText(tablize(rows.items.map(rows.row), null))
  const oneGo = performance.now() - began
  let longestGap = 0
  let last = performance.now()
  let running = true
  let turns = 0
  const spin = (): void => {
    const now = performance.now()
    longestGap = Math.max(longestGap, now - last)
    last = now
    turns++
    if (running) setImmediate(spin)
  }
  setImmediate(spin)
  const written = await csvBytes(rows.items, rows.row, null)
  running = false
  t.equal(written.toString('utf8'), atOnce, 'the same CSV as written in one go')
  t.ok(turns > 10, `the loop turned ${turns} times while the CSV was written`)
  // Written in one go, the export would hold the loop for all of `oneGo`.
  t.ok(longestGap < oneGo / 4, `the loop waited ${longestGap.toFixed(1)} ms at most; writing it in one go takes ${oneGo.toFixed(1)} ms`)
})
