import t from 'tap'
import { compileFlags } from '../../src/decide/compile.js'
import { evaluateFlags } from '../../src/decide/evaluate.js'
import { HashMemo } from '../../src/decide/hash-memo.js'
import { differentialDefinitions, randomCase } from './support/differential-flags.js'
import { seededRandom } from './support/flags.js'

const CASES = 3000

t.test('remembered hashes give the same answers as hashes computed afresh', async (t) => {
  const compiled = compileFlags(differentialDefinitions)
  const memo = new HashMemo()
  const random = seededRandom(20261127)
  // A few people asked about again and again, as SDKs ask, each with properties that change.
  const people = Array.from({ length: 40 }, (_, i) => randomCase(random, i, Date.now()).distinctId)
  let differing = 0
  let remembered = 0
  for (let i = 0; i < CASES; i++) {
    const nowMs = Date.now()
    const c = randomCase(random, i, nowMs)
    const distinctId = people[i % people.length]!
    // Sometimes a group's key is the person's distinct id: the same identifier, the same hashes.
    const groups = random() < 0.2 ? { company: distinctId } : c.groups
    const input = { definitions: compiled, distinctId, personProperties: c.personProperties, groups, groupProperties: c.groupProperties, now: nowMs }
    const slots = memo.slotsOf(compiled, distinctId)
    if (slots.some((slot) => !Number.isNaN(slot))) remembered++
    const fresh = evaluateFlags(input)
    const withMemo = evaluateFlags({ ...input, hashes: slots })
    if (JSON.stringify(fresh) !== JSON.stringify(withMemo)) differing++
  }
  t.equal(differing, 0, `${CASES} evaluations agree`)
  t.ok(remembered > CASES * 0.9, `most evaluations read remembered hashes (${remembered})`)
})

t.test('a changed flag set starts with no remembered hashes', async (t) => {
  const memo = new HashMemo()
  const before = compileFlags(differentialDefinitions)
  const slots = memo.slotsOf(before, 'ada')
  evaluateFlags({ definitions: before, distinctId: 'ada', personProperties: { plan: 'pro', email: 'ada@example.com' }, now: Date.now(), hashes: slots })
  t.ok(slots.some((slot) => !Number.isNaN(slot)), 'hashes were remembered')
  t.equal(memo.slotsOf(before, 'ada'), slots, 'and are found again under the same flags')
  // The same flags with each key changed: every hash differs, and none may be read from before.
  const renamed = compileFlags({ ...differentialDefinitions, flags: differentialDefinitions.flags.map((flag) => ({ ...flag, key: `${flag.key}-2` })) })
  const after = memo.slotsOf(renamed, 'ada')
  t.ok(after.every((slot) => Number.isNaN(slot)), 'a new flag set has its own, empty slots')
  const input = { definitions: renamed, distinctId: 'ada', personProperties: { plan: 'pro', email: 'ada@example.com' }, now: Date.now() }
  t.same(evaluateFlags({ ...input, hashes: after }), evaluateFlags(input))
})
