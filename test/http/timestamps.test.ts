import t from 'tap'
import { apiTime } from '../../src/http/timestamps.js'

t.test('times are printed as PostHog prints them', async (t) => {
  t.equal(apiTime('2022-01-01T00:00:00.000Z'), '2022-01-01T00:00:00Z', 'no fraction when it is zero')
  t.equal(apiTime('2024-05-01T10:11:12.123Z'), '2024-05-01T10:11:12.123000Z', 'microseconds otherwise')
  t.equal(apiTime('2024-05-01T10:11:12.123456+00:00'), '2024-05-01T10:11:12.123456Z')
  t.equal(apiTime('2024-05-01T10:11:12Z'), '2024-05-01T10:11:12Z')
  t.equal(apiTime(null), null)
  t.equal(apiTime('not a time'), 'not a time', 'anything else is left alone')
})
