import type { Test } from 'tap'
import { CheckpointConflict, type ReadStore } from '../../src/readstore/port.js'
import { collect } from '../support/collect.js'

export interface ReadStoreAdapter {
  readonly name: string
  open(): Promise<ReadStore>
}

const at = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) })

/** Runs the read-store contract against one adapter. */
export const readStoreContract = (t: Test, adapter: ReadStoreAdapter): void => {
  let store: ReadStore
  t.before(async () => { store = await adapter.open() })
  t.teardown(async () => { await store.close() })

  const people = [
    { id: 'p1', name: 'Ada', team: 1, active: true, address: { city: 'London' } },
    { id: 'p2', name: 'Grace', team: 2, active: false, address: { city: 'New York' } },
    { id: 'p3', name: 'Alan', team: 1, active: true, address: { city: 'London' } },
    { id: 'p4', name: 'Edsger', team: 1, active: false, address: null },
  ]
  t.before(async () => {
    await store.ensureIndex('people', ['team', 'name'])
    await store.commit({ checkpoint: 'people-loader', expected: null, next: at(1), changes: people.map((doc) => ({ collection: 'people', id: doc.id, doc })) })
  })

  t.test('documents are read back by id, and a missing id is null', async (t) => {
    t.same(await store.get('people', 'p2'), people[1])
    t.equal(await store.get('people', 'nobody'), null)
    t.equal(await store.get('never_written', 'x'), null, 'an unknown collection reads as empty')
  })

  t.test('getMany reads several documents at once, leaving out the ids that do not exist', async (t) => {
    const found = await store.getMany('people', ['p3', 'nobody', 'p1', 'p3'])
    t.same([...found.keys()].sort(), ['p1', 'p3'])
    t.same(found.get('p1'), people[0])
    t.same(found.get('p3'), people[2])
    t.equal((await store.getMany('people', [])).size, 0, 'no ids, no documents')
    t.equal((await store.getMany('never_written', ['x'])).size, 0, 'an unknown collection reads as empty')
    const odd = ['quote"d', 'back\\slash', 'uni\u00e9', '[1]', '']
    await store.commit({ checkpoint: 'odd-ids', expected: null, next: at(1), changes: odd.map((id, i) => ({ collection: 'odd_ids', id, doc: { n: i } })) })
    const oddFound = await store.getMany<{ n: number }>('odd_ids', odd)
    t.same(odd.map((id) => oddFound.get(id)?.n), [0, 1, 2, 3, 4], 'ids with quotes, backslashes and brackets are matched exactly')
    const some = await store.getMany('people', ['p1', 'p4', 'nobody'], ['name', 'address.city'])
    t.same(Object.fromEntries(some), { p1: { name: 'Ada', address: { city: 'London' } }, p4: { name: 'Edsger' } }, 'only the fields asked for, a field the document lacks left out')
    t.same(Object.fromEntries(await store.getMany('people', ['p2'], ['team', 'active'])), { p2: { team: 2, active: false } }, 'numbers and booleans as they are')
  })

  t.test('find filters by equality on top-level and dotted fields, sorts, pages and counts', async (t) => {
    const names = (docs: { name?: unknown }[]) => docs.map((d) => d.name)
    t.same(names(await store.find('people', { where: { team: 1 }, orderBy: [['name', 'asc']] })), ['Ada', 'Alan', 'Edsger'])
    t.same(names(await store.find('people', { where: { team: 1, active: true }, orderBy: [['name', 'desc']] })), ['Alan', 'Ada'])
    t.same(names(await store.find('people', { where: { 'address.city': 'London' }, orderBy: [['name', 'asc']] })), ['Ada', 'Alan'])
    t.same(names(await store.find('people', { where: { address: null } })), ['Edsger'], 'null matches a null field')
    t.same(names(await store.find('people', { orderBy: [['name', 'asc']], limit: 2, offset: 1 })), ['Alan', 'Edsger'])
    t.same(names(await store.find('people', { where: { team: '1' } })), [], 'a string does not equal a number')
    t.same(names(await store.find('people', { where: { team: true } })), [], 'a boolean does not equal a number')
    t.same(names(await store.find('people', { where: { active: 1 } })), [], 'a number does not equal a boolean')
    t.same(names(await store.find('people', { where: { active: false }, orderBy: [['name', 'asc']] })), ['Edsger', 'Grace'])
    t.equal(await store.count('people', { team: 1 }), 3)
    t.equal(await store.count('people'), 4)
  })

  t.test('find reads only the asked fields, nested as in the document, within the page', async (t) => {
    const found = await store.find('people', { where: { team: 1 }, orderBy: [['name', 'asc']], limit: 2, fields: ['name', 'address.city', 'nickname'] })
    t.same(found, [{ name: 'Ada', address: { city: 'London' } }, { name: 'Alan', address: { city: 'London' } }], 'absent fields are left out')
    t.same(await store.find('people', { where: { active: false }, orderBy: [['name', 'asc']], offset: 1, fields: ['id', 'active'] }), [{ id: 'p2', active: false }])
    t.same(await store.find('people', { where: { id: 'p1' }, fields: [] }), [{}])
  })

  t.test('contains matches array fields that hold a string, in find and count', async (t) => {
    const docs = [
      { id: 't1', tags: ['red', 'blue'], n: 1 }, { id: 't2', tags: ['blue'], n: 2 }, { id: 't3', tags: [], n: 3 },
      { id: 't4', tags: ['1'], n: 4 }, { id: 't5', n: 5 }, { id: 't6', tags: [1, true], n: 6 },
    ]
    await store.commit({ checkpoint: 'tags-loader', expected: null, next: at(1), changes: docs.map((doc) => ({ collection: 'tagged', id: doc.id, doc })) })
    const ids = async (query: Parameters<ReadStore['find']>[1]) => (await store.find<{ id: string }>('tagged', query)).map((d) => d.id)
    t.same(await ids({ contains: { tags: 'blue' } }), ['t1', 't2'])
    t.same(await ids({ contains: { tags: 'blue' }, where: { n: 2 } }), ['t2'], 'with equality too')
    t.same(await ids({ contains: { tags: '1' } }), ['t4'], 'a string does not match a number or a boolean')
    t.same(await ids({ contains: { tags: 'green' } }), [])
    t.equal(await store.count('tagged', undefined, { tags: 'blue' }), 2)
    t.equal(await store.count('tagged', { n: 1 }, { tags: 'blue' }), 1)
  })

  t.test('find bounds fields, takes lists of values, and pages after a document, indexed or not', async (t) => {
    const times = [
      { id: 'e1', env: 1, at: '2024-01-01T10:00:00.000Z', event: 'a', n: 5, flag: true },
      { id: 'e2', env: 1, at: '2024-01-02T00:00:00.000Z', event: 'b', n: 1, flag: false },
      { id: 'e3', env: 1, at: '2024-01-02T00:00:00.000Z', event: 'a', n: '7' },
      { id: 'e4', env: 1, at: '2024-01-03T23:59:59.999Z', event: 'c', n: 3, flag: 1 },
      { id: 'e5', env: 2, at: '2024-01-02T12:00:00.000Z', event: 'a', n: 2 },
      { id: 'e6', env: 3, at: { nested: 'x' }, event: 'a' },
    ]
    await store.ensureIndex('timed', ['env', 'at'])
    await store.commit({ checkpoint: 'timed-loader', expected: null, next: at(1), changes: times.map((doc) => ({ collection: 'timed', id: doc.id, doc })) })
    const ids = (docs: { id?: unknown }[]) => docs.map((doc) => doc.id)
    const inJanuarySecond = { at: { gte: '2024-01-02T00:00:00.000Z', lt: '2024-01-03T00:00:00.000Z' } }
    t.same(ids(await store.find('timed', { where: { env: 1 }, range: inJanuarySecond, orderBy: [['at', 'asc']] })), ['e2', 'e3'], 'an indexed text field between two bounds')
    t.same(ids(await store.find('timed', { range: { at: { gt: '2024-01-02T00:00:00.000Z' } }, orderBy: [['at', 'asc']] })), ['e5', 'e4'], 'strictly after')
    t.same(ids(await store.find('timed', { range: { at: { lte: '2024-01-01T10:00:00.000Z' } } })), ['e1'], 'an object is not a string')
    t.same(ids(await store.find('timed', { range: { n: { gte: 2, lte: 5 } }, orderBy: [['n', 'asc']] })), ['e5', 'e4', 'e1'], 'numbers compare as numbers; a string is not a number')
    t.same(ids(await store.find('timed', { range: { n: { gte: '0' } } })), ['e3'], 'a string bound holds only for strings')
    t.same(ids(await store.find('timed', { range: { flag: { gte: 0 } } })), ['e4'], 'a boolean is not a number')
    t.same(ids(await store.find('timed', { oneOf: { event: ['b', 'c'] }, orderBy: [['at', 'asc']] })), ['e2', 'e4'])
    t.same(ids(await store.find('timed', { oneOf: { n: [1, '7', 3] }, orderBy: [['at', 'asc']] })), ['e2', 'e3', 'e4'], 'strings and numbers in one list')
    t.same(ids(await store.find('timed', { oneOf: { n: ['1'] } })), [], 'the string "1" is not the number 1')
    t.same(ids(await store.find('timed', { oneOf: { event: [] } })), [], 'an empty list holds for none')
    const pages: unknown[][] = []
    let after: string[] | undefined
    for (;;) {
      const page = await store.find<{ id: string; at: string }>('timed', { where: { env: 1 }, range: { at: { gte: '2024-01-01T00:00:00.000Z' } }, orderBy: [['at', 'asc'], ['id', 'asc']], limit: 2, ...(after ? { after } : {}) })
      if (page.length === 0) break
      pages.push(ids(page))
      const last = page.at(-1)!
      after = [last.at, last.id]
    }
    t.same(pages, [['e1', 'e2'], ['e3', 'e4']], 'pages after a document, ties told apart by the last field')
    const unique = { where: { env: 1 }, orderBy: [['at', 'asc'], ['id', 'asc']], uniqueOrder: true } as const
    t.same(ids(await store.find('timed', unique)), ['e1', 'e2', 'e3', 'e4'], 'an order declared unique, with no tie-break of the store\'s')
    t.same(ids(await store.find('timed', { ...unique, after: ['2024-01-02T00:00:00.000Z', 'e2'] })), ['e3', 'e4'], 'and read after a document')
    t.same(ids(await store.find('timed', { where: { env: 1 }, uniqueOrder: true })), ['e1', 'e2', 'e3', 'e4'], 'no order at all: by id, declared unique or not')
    t.same(ids(await store.find('timed', { where: { env: 1 }, orderBy: [['event', 'asc'], ['at', 'asc'], ['id', 'asc']], after: ['a', '2024-01-02T00:00:00.000Z', 'e2'] })), ['e3', 'e2', 'e4'], 'an unindexed order of three fields')
    await t.rejects(store.find('timed', { orderBy: [['at', 'desc']], after: ['x'] }), TypeError)
    await t.rejects(store.find('timed', { orderBy: [['at', 'asc']], after: ['x', 'y'] }), TypeError)
  })

  t.test('an indexed field tells booleans, numbers and strings apart in equality, bounds and lists', async (t) => {
    const docs = [
      { id: 'v1', v: true }, { id: 'v2', v: 1 }, { id: 'v3', v: false }, { id: 'v4', v: 0 }, { id: 'v5', v: '1' }, { id: 'v6', v: { n: 1 } }, { id: 'v7' },
    ]
    await store.ensureIndex('typed_values', ['v'])
    await store.commit({ checkpoint: 'typed-loader', expected: null, next: at(1), changes: docs.map((doc) => ({ collection: 'typed_values', id: doc.id, doc })) })
    const ids = async (query: Parameters<ReadStore['find']>[1]) => (await store.find<{ id: string }>('typed_values', query)).map((d) => d.id).sort()
    t.same(await ids({ where: { v: 1 } }), ['v2'], 'the number 1, not true')
    t.same(await ids({ where: { v: 0 } }), ['v4'], 'the number 0, not false')
    t.same(await ids({ where: { v: true } }), ['v1'])
    t.same(await ids({ where: { v: false } }), ['v3'])
    t.same(await ids({ where: { v: '1' } }), ['v5'])
    t.same(await ids({ range: { v: { gte: 0 } } }), ['v2', 'v4'], 'numbers only')
    t.same(await ids({ oneOf: { v: [0, 1] } }), ['v2', 'v4'])
    t.equal(await store.count('typed_values', { v: 1 }), 1)
  })

  t.test('an index created over stored documents answers as one created before them', async (t) => {
    // A build that defers its indexes (a rebuild) creates them over filled collections.
    const docs = [
      { id: 'v1', v: true, w: 'b' }, { id: 'v2', v: 1, w: 'a' }, { id: 'v3', v: false }, { id: 'v4', v: 0, w: 'a' }, { id: 'v5', v: '1' }, { id: 'v6', v: { n: 1 } }, { id: 'v7', w: 'c' },
    ]
    await store.commit({ checkpoint: 'late-loader', expected: null, next: at(1), changes: docs.map((doc) => ({ collection: 'late_values', id: doc.id, doc })) })
    await store.ensureIndex('late_values', ['w', 'v'])
    await store.ensureIndex('late_values', ['v'])
    const ids = async (query: Parameters<ReadStore['find']>[1]) => (await store.find<{ id: string }>('late_values', query)).map((d) => d.id)
    t.same((await ids({ where: { v: 1 } })), ['v2'], 'the number 1, not true')
    t.same((await ids({ where: { v: false } })), ['v3'])
    t.same((await ids({ range: { v: { gte: 0 } } })).sort(), ['v2', 'v4'], 'numbers only')
    t.same(await ids({ where: { w: 'a' }, orderBy: [['v', 'asc']] }), ['v4', 'v2'])
    await store.commit({ checkpoint: 'late-loader', expected: at(1), next: at(2), changes: [{ collection: 'late_values', id: 'v8', doc: { id: 'v8', v: 2, w: 'a' } }] })
    t.same(await ids({ where: { w: 'a' }, range: { v: { gte: 1 } }, orderBy: [['v', 'asc']] }), ['v2', 'v8'], 'a later write keeps the index')
  })

  t.test('keys that start with $ or contain dots survive a round trip and can be filtered on', async (t) => {
    const doc = { id: 'odd', properties: { $browser: 'Firefox', 'utm.source': 'ads', nested: { $set: { a: 1 } } }, tags: ['x'] }
    await store.commit({ checkpoint: 'odd-loader', expected: null, next: at(1), changes: [{ collection: 'odd_keys', id: 'odd', doc }] })
    t.same(await store.get('odd_keys', 'odd'), doc)
    t.same(await store.find('odd_keys', { where: { 'properties.$browser': 'Firefox' } }), [doc])
  })

  t.test('a commit writes documents and moves the checkpoint together', async (t) => {
    await store.commit({ checkpoint: 'things@v1', expected: null, next: at(5), changes: [{ collection: 'things', id: 'a', doc: { id: 'a', n: 1 } }] })
    t.same(await store.checkpoint('things@v1'), at(5))
    await store.commit({
      checkpoint: 'things@v1', expected: at(5), next: at(9),
      changes: [{ collection: 'things', id: 'a', doc: null }, { collection: 'things', id: 'b', doc: { id: 'b', n: 2 } }],
    })
    t.same(await store.checkpoint('things@v1'), at(9))
    t.equal(await store.get('things', 'a'), null, 'a null document deletes')
    t.same(await store.get('things', 'b'), { id: 'b', n: 2 })
    t.equal(await store.checkpoint('never-ran'), null)
  })

  t.test('a commit against a moved checkpoint writes nothing', async (t) => {
    await store.commit({ checkpoint: 'race@v1', expected: null, next: at(3), changes: [] })
    await t.rejects(store.commit({ checkpoint: 'race@v1', expected: at(2), next: at(4), changes: [{ collection: 'race', id: 'x', doc: { id: 'x' } }] }), CheckpointConflict)
    await t.rejects(store.commit({ checkpoint: 'race@v1', expected: null, next: at(4), changes: [{ collection: 'race', id: 'y', doc: { id: 'y' } }] }), CheckpointConflict)
    t.equal(await store.get('race', 'x'), null)
    t.equal(await store.get('race', 'y'), null)
    t.same(await store.checkpoint('race@v1'), at(3))
  })

  t.test('staged parts are invisible until one commit publishes them with the checkpoint', async (t) => {
    const doc = (id: string, n: number) => ({ collection: 'staged_things', id, doc: { id, n } })
    await store.commit({ checkpoint: 'stager@v1', expected: null, next: at(1), changes: [doc('kept', 1), doc('changed', 1), doc('removed', 1)] })
    const before = { get: await store.get('staged_things', 'changed'), list: await store.find('staged_things', { orderBy: [['n', 'asc']] }) }
    const group = 'stager@v1@2'
    await store.stage({ group, attempt: 'a' }, [doc('changed', 2), doc('added', 2)])
    await store.stage({ group, attempt: 'a' }, [{ collection: 'staged_things', id: 'removed', doc: null }, doc('changed', 3)])
    await store.stage({ group, attempt: 'cut-short' }, [doc('stray', 9), doc('kept', 9)])
    t.same(await store.get('staged_things', 'changed'), before.get, 'get reads the document as it was')
    const unpublished = await store.getMany('staged_things', ['changed', 'added', 'removed'])
    t.same(Object.fromEntries(unpublished), { changed: before.get, removed: { id: 'removed', n: 1 } }, 'getMany reads the documents as they were')
    t.equal(await store.get('staged_things', 'added'), null)
    t.same(await store.find('staged_things', { orderBy: [['n', 'asc']] }), before.list, 'find reads as if nothing were staged')
    t.equal(await store.count('staged_things', { n: 1 }), 3)
    t.same((await collect(store.scan('staged_things'))).map((row) => row.id), ['changed', 'kept', 'removed'])
    await t.rejects(store.commit({ checkpoint: 'stager@v1', expected: at(0), next: at(2), changes: [], publish: { group, attempt: 'a' } }), CheckpointConflict)
    t.equal(await store.get('staged_things', 'added'), null, 'a publishing commit that conflicts publishes nothing')
    await store.commit({ checkpoint: 'stager@v1', expected: at(1), next: at(2), changes: [], publish: { group, attempt: 'a' } })
    t.same(await store.checkpoint('stager@v1'), at(2))
    t.same(await store.get('staged_things', 'changed'), { id: 'changed', n: 3 }, 'the last staged version of a document wins')
    t.same(await store.get('staged_things', 'added'), { id: 'added', n: 2 })
    t.equal(await store.get('staged_things', 'removed'), null, 'a staged deletion deletes')
    t.same(await store.get('staged_things', 'kept'), { id: 'kept', n: 1 }, 'another attempt of the group is not published')
    t.equal(await store.get('staged_things', 'stray'), null)
    t.same(await store.find('staged_things', { orderBy: [['id', 'asc']] }), [{ id: 'added', n: 2 }, { id: 'changed', n: 3 }, { id: 'kept', n: 1 }])
    t.equal(await store.count('staged_things'), 3)
    t.same((await collect(store.scan('staged_things'))).map((row) => row.id), ['added', 'changed', 'kept'])
    const published = await store.getMany('staged_things', ['changed', 'added', 'removed', 'stray'])
    t.same(Object.fromEntries(published), { changed: { id: 'changed', n: 3 }, added: { id: 'added', n: 2 } }, 'getMany reads the published versions, by their ids')
    t.same(Object.fromEntries(await store.getMany('staged_things', ['changed', 'added'], ['n'])), { changed: { n: 3 }, added: { n: 2 } }, 'and only their fields when asked')
    await store.stage({ group: 'stager@v1@3', attempt: 'b' }, [doc('changed', 4)])
    await store.commit({ checkpoint: 'stager@v1', expected: at(2), next: at(3), changes: [], publish: { group: 'stager@v1@3', attempt: 'b' } })
    t.same(await store.get('staged_things', 'changed'), { id: 'changed', n: 4 }, 'a published document can be staged over again')
    t.equal(await store.count('staged_things'), 3)
  })

  t.test('scan returns every document in ascending id order', async (t) => {
    const ids = ['', ...Array.from({ length: 1203 }, (_, i) => `doc-${String(i).padStart(5, '0')}`)]
    await store.commit({ checkpoint: 'scan-loader', expected: null, next: at(1), changes: [...ids].reverse().map((id) => ({ collection: 'scanned', id, doc: { id } })) })
    t.same((await collect(store.scan('scanned'))).map((row) => row.id), ids)
  })

  t.test('a dropped collection reads as empty', async (t) => {
    await store.commit({ checkpoint: 'drop-loader', expected: null, next: at(1), changes: [{ collection: 'dropped', id: 'a', doc: { id: 'a' } }] })
    await store.dropCollection('dropped')
    await store.dropCollection('dropped')
    t.equal(await store.count('dropped'), 0)
  })

  t.test('a lease has one holder until it expires on the store clock', async (t) => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    t.equal(await store.acquireLease('projector', 'a', 1000), true)
    t.equal(await store.acquireLease('projector', 'b', 1000), false, 'another owner waits')
    await sleep(500)
    t.equal(await store.acquireLease('projector', 'a', 1000), true, 'the holder renews')
    await sleep(600)
    t.equal(await store.acquireLease('projector', 'b', 1000), false, 'a renewed lease outlives its first term')
    await sleep(600)
    t.equal(await store.acquireLease('projector', 'b', 1000), true, 'an expired lease passes on')
    t.equal(await store.acquireLease('projector', 'a', 60_000), false, 'and its former holder waits in turn')
    await store.releaseLease('projector', 'b')
    t.equal(await store.acquireLease('projector', 'a', 60_000), true, 'a released lease is free')
  })

  t.test('bad collection and field names are refused', async (t) => {
    await t.rejects(store.get('Robert"); DROP TABLE x;--', 'a'), TypeError)
    await t.rejects(store.find('people', { where: { "name') OR 1=1 --": 'x' } }), TypeError)
  })
}
