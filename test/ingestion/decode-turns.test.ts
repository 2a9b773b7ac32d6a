import t from 'tap'
import { DecodePool } from '../../src/ingestion/decode-pool.js'

const tick = () => new Promise((resolve) => setImmediate(resolve))

/** A piece of work that runs until it is let go, recording when it started. */
const held = (started: number[], id: number) => {
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  return { work: async () => { started.push(id); await gate; return id }, release: () => release() }
}

t.test('given more heavy requests than may run at once, when they arrive, then the others wait and start in arrival order as turns free up', async (t) => {
  const pool = new DecodePool({ inFlight: 2 })
  t.teardown(() => pool.close())
  const started: number[] = []
  const works = [1, 2, 3, 4].map((id) => held(started, id))
  const done = works.map(({ work }) => pool.inTurn(work))
  await tick()
  t.same(started, [1, 2], 'two run at once')
  works[1]!.release()
  await tick()
  t.same(started, [1, 2, 3], 'the third starts when one ends')
  works[0]!.release()
  await tick()
  t.same(started, [1, 2, 3, 4])
  works[2]!.release()
  works[3]!.release()
  t.same(await Promise.all(done), [1, 2, 3, 4], 'each resolves with its own result')
})

t.test('given a heavy request that fails, when it ends, then its turn passes to the next one', async (t) => {
  const pool = new DecodePool({ inFlight: 1 })
  t.teardown(() => pool.close())
  const failing = pool.inTurn(async () => { throw new Error('refused') })
  const next = pool.inTurn(async () => 'next')
  await t.rejects(failing, /refused/)
  t.equal(await next, 'next')
  t.equal(await pool.inTurn(async () => 'later'), 'later', 'and turns are still given after both')
})
