import t from 'tap'
import { PAGE_SIZE } from '../../src/persons/distinct-id-pages.js'
import type { PersonTables } from '../../src/persons/records.js'
import { captured, memoryTables, processAll } from './support/tables.js'

const ids = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`)
const merge = (distinctId: string, alias: string) => captured('$merge_dangerously', distinctId, { properties: { alias } })
const identify = (distinctId: string, anon: string) => captured('$identify', distinctId, { properties: { $anon_distinct_id: anon } })

/** Tables that note, per event, how many ids each page written held and how many pages and persons were written. */
const counting = (tables: PersonTables) => {
  const writes = { pages: 0, largest: 0, persons: 0 }
  const counted: PersonTables = {
    ...tables,
    environmentId: tables.environmentId,
    putPage: (uuid, page, record) => {
      writes.pages++
      writes.largest = Math.max(writes.largest, record?.ids.length ?? 0)
      tables.putPage(uuid, page, record)
    },
    putPerson: (record) => {
      writes.persons++
      tables.putPerson(record)
    },
  }
  const reset = () => Object.assign(writes, { pages: 0, largest: 0, persons: 0 })
  return { counted, writes, reset }
}

t.test('a star of $identify attaches ids in order across pages, each event rewriting one page', async (t) => {
  const { tables, personOf, pages, persons } = memoryTables()
  const { counted, writes, reset } = counting(tables)
  const anons = ids('anon-', 3 * PAGE_SIZE + 5)
  let worst = { pages: 0, largest: 0, persons: 0 }
  for (const anon of anons) {
    reset()
    processAll(counted, identify('hub', anon))
    if (writes.largest > worst.largest || writes.pages > worst.pages) worst = { ...writes }
  }
  t.same(personOf('hub')!.distinct_ids, ['hub', ...anons])
  t.equal(personOf(anons.at(-1)!)!.uuid, personOf('hub')!.uuid)
  t.ok(worst.pages <= 2 && worst.largest <= PAGE_SIZE, `at most two pages of at most ${PAGE_SIZE} ids written by one event (${JSON.stringify(worst)})`)
  t.equal(pages.size, 3, 'the ids fill the person\'s own page, then page documents one after another')
  t.equal(persons.get(personOf('hub')!.uuid)!.distinct_ids.length, PAGE_SIZE, 'the person itself holds one page')
})

t.test('a chain of $merge_dangerously lists each alias first, rewriting at most two pages an event', async (t) => {
  const { tables, personOf, distinctIds } = memoryTables()
  const { counted, writes, reset } = counting(tables)
  const count = 2 * PAGE_SIZE + 10
  let largest = 0
  let mostPages = 0
  for (let i = 0; i < count; i++) {
    reset()
    processAll(counted, merge(`ch${i + 1}`, `ch${i}`))
    largest = Math.max(largest, writes.largest)
    mostPages = Math.max(mostPages, writes.pages)
  }
  // Each event attaches ch(i+1) at the end, then moves the alias ch(i) to the front.
  const expected = [...ids('ch', count).reverse(), `ch${count}`]
  t.same(personOf('ch0')!.distinct_ids, expected)
  t.ok(largest <= PAGE_SIZE && mostPages <= 3, `no event wrote more than ${PAGE_SIZE} ids to a page or more than three pages (${largest}, ${mostPages})`)
  const person = [...new Set([...distinctIds.values()].map((record) => record.person_id))]
  t.equal(person.length, 1, 'every id maps to the one person')
  for (const id of expected.slice(0, 3)) {
    const page = distinctIds.get(id)!.page!
    t.ok(tables.page(personOf(id)!.uuid, page)!.ids.includes(id), `${id}'s mapping names the page holding it`)
  }
})

t.test('merging two persons of several pages puts the source\'s ids after the target\'s and drops the source\'s pages', async (t) => {
  const { tables, personOf, distinctIds, pages, persons } = memoryTables()
  const left = ids('l', PAGE_SIZE + 20)
  const right = ids('r', 2 * PAGE_SIZE + 3)
  processAll(tables, ...left.map((id) => identify('left', id)), ...right.map((id) => identify('right', id)))
  const source = personOf('left')!
  const target = personOf('right')!
  processAll(tables, merge('right', 'left'))
  t.equal(persons.size, 1)
  t.same(personOf('left')!.distinct_ids, ['left', 'right', ...right, ...left], 'the alias first, then the target\'s ids and the source\'s in their order')
  t.equal(personOf('l0')!.uuid, target.uuid)
  t.notOk([...pages.keys()].some((key) => key.startsWith(`${source.uuid}:`)), 'no page of the merged-away person is left')
  for (const id of [...left, 'left']) {
    const record = distinctIds.get(id)!
    t.equal(record.person_id, target.uuid)
    if (!tables.page(target.uuid, record.page!)!.ids.includes(id)) t.fail(`${id}'s mapping names a page without it`)
  }
  t.pass('every moved id\'s mapping names the page that holds it')
})

t.test('moving an id already first writes nothing', async (t) => {
  const { tables } = memoryTables()
  processAll(tables, merge('b', 'a'))
  const { counted, writes } = counting(tables)
  processAll(counted, captured('$create_alias', 'b', { properties: { alias: 'a' } }))
  t.same(writes, { pages: 0, largest: 0, persons: 0 })
})
