import t from 'tap'
import fc from 'fast-check'
import { RE2JS } from 're2js'
import { compilePattern } from '../../src/decide/regex.js'

const LITERAL_CHARS = ['a', 'b', 'Z', '0', '9', '_', '@', ' ', ':', ',', '=', '&', '%', '#', '!', '~', "'", '"', '<', '>', '/', '-', '\\.', '\\-', '\\/']
const INPUT_CHARS = ['a', 'b', 'Z', '0', '_', '@', ' ', ':', '.', '-', '/', '\n', '\r', 'é', '\ud800', '😀', 'A', 'x']

const literal = fc.tuple(fc.boolean(), fc.array(fc.constantFrom(...LITERAL_CHARS), { maxLength: 6 }), fc.boolean())
  .map(([start, chars, end]) => `${start ? '^' : ''}${chars.join('')}${end ? '$' : ''}`)
const input = fc.array(fc.constantFrom(...INPUT_CHARS), { maxLength: 12 }).map((chars) => chars.join(''))

t.test('plain patterns, anchored or not, match exactly what the engine matches', async (t) => {
  fc.assert(fc.property(literal, input, (pattern, text) => compilePattern(pattern)!.test(text) === RE2JS.compile(pattern).test(text)), { numRuns: 20_000 })
  fc.assert(fc.property(literal, input, input, (pattern, before, after) => {
    const needle = pattern.replace(/^\^/, '').replace(/\$$/, '').replace(/\\(.)/g, '$1')
    const text = `${before}${needle}${after}`
    return compilePattern(pattern)!.test(text) === RE2JS.compile(pattern).test(text)
  }), { numRuns: 20_000 })
  for (const [pattern, text, expected] of [['^a', 'ada', true], ['com$', 'x.com\n', false], ['^$', '', true], ['\\.com$', 'a.com', true], ['\\.com$', 'acom', false], ['', 'anything', true]] as const) {
    t.equal(compilePattern(pattern)!.test(text), expected, `${pattern} on ${JSON.stringify(text)}`)
  }
})
