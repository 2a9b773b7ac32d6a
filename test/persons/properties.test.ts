import t from 'tap'
import { applyOperations, createdProperties, worthWriting } from '../../src/persons/properties.js'

const ops = (set = {}, setOnce = {}, unset: string[] = []) => ({ set, setOnce, unset })

t.test('a new person takes $set_once then $set, with the creating event uuid; $unset is ignored', async (t) => {
  t.same(createdProperties(ops({ a: 'set' }, { a: 'once', b: 'once' }, ['b']), 'e-1'), { a: 'set', b: 'once', $creator_event_uuid: 'e-1' })
})

t.test('$set_once does not overwrite, even a key holding null', async (t) => {
  t.equal(applyOperations({ a: 1, b: null }, ops({}, { a: 2, b: 3 })), null)
  t.same(applyOperations({ a: 1 }, ops({}, { c: 3 }))?.properties, { a: 1, c: 3 })
})

t.test('$set changes only differing values and beats $set_once in the same event', async (t) => {
  t.equal(applyOperations({ a: 1, o: { x: [1] } }, ops({ a: 1, o: { x: [1] } })), null)
  t.same(applyOperations({ a: 1 }, ops({ a: 2 }))?.properties, { a: 2 })
  t.same(applyOperations({}, ops({ k: 'set' }, { k: 'once' }))?.properties, { k: 'set' })
})

t.test('$unset removes present keys, after $set', async (t) => {
  t.same(applyOperations({ a: 1, b: 2 }, ops({}, {}, ['a', 'missing']))?.properties, { b: 2 })
  t.same(applyOperations({ a: 1 }, ops({ b: 2 }, {}, ['b']))?.properties, { a: 1 })
  t.equal(applyOperations({ a: 1 }, ops({}, {}, ['missing'])), null)
})

t.test('the current properties are never changed in place', async (t) => {
  const current = Object.freeze({ a: 1 })
  t.same(applyOperations(current, ops({ a: 2 }, { b: 1 }, ['a']))?.properties, { b: 1 })
  t.same(current, { a: 1 })
})

t.test('refreshing automatic properties a person already has is not written on its own', async (t) => {
  const refresh = applyOperations({ $browser: 'Chrome', $current_url: 'a', $geoip_city_name: 'X' }, ops({ $browser: 'Firefox', $current_url: 'b' }))!
  t.equal(worthWriting('$pageview', refresh), false)
  t.equal(worthWriting('$identify', refresh), true, 'person events always write')
  t.equal(worthWriting('$set', refresh), true)
  const newKey = applyOperations({ $browser: 'Chrome' }, ops({ $os: 'Linux' }))!
  t.equal(worthWriting('$pageview', newKey), true, 'a new key is written')
  const other = applyOperations({ $browser: 'Chrome', plan: 'a' }, ops({ $browser: 'Firefox', plan: 'b' }))!
  t.equal(worthWriting('$pageview', other), true, 'any other property is written, with the automatic ones')
  const city = applyOperations({ $geoip_city_name: 'X', $geoip_latitude: 1 }, ops({ $geoip_city_name: 'Y' }))!
  t.equal(worthWriting('$pageview', city), true, 'city and country names are not automatic')
  const latitude = applyOperations({ $geoip_latitude: 1 }, ops({ $geoip_latitude: 2 }))!
  t.equal(worthWriting('$pageview', latitude), false)
})
