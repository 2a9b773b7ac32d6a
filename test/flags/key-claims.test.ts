import t from 'tap'
import { ValidationFailed } from '../../src/kernel/errors.js'
import { flagKeyDecider } from '../../src/flags/decider.js'
import { spec } from '../support/given.js'

const given = spec(flagKeyDecider)
const claimed = (flagId: number, at: string) => ({ type: 'FlagKeyClaimed' as const, data: { flagId, at } })
const released = (flagId: number, at: string) => ({ type: 'FlagKeyReleased' as const, data: { flagId, at } })

t.test('a free key is claimed; claiming it again for the same flag records nothing', async (t) => {
  given().when({ type: 'ClaimKey', flagId: 1, staleHolder: null, at: '2026-01-01T00:00:00Z' }).then(t, [claimed(1, '2026-01-01T00:00:00Z')])
  given(claimed(1, '2026-01-01T00:00:00Z')).when({ type: 'ClaimKey', flagId: 1, staleHolder: null, at: '2026-01-01T00:00:01Z' }).then(t, [])
})

t.test('a key held by another flag is refused, even when that flag is not written yet', async (t) => {
  given(claimed(1, '2026-01-01T00:00:00Z')).when({ type: 'ClaimKey', flagId: 2, staleHolder: null, at: '2026-01-01T00:00:01Z' }).thenThrows(t, ValidationFailed)
  given(claimed(1, '2026-01-01T00:00:00Z')).when({ type: 'ClaimKey', flagId: 2, staleHolder: 1, at: '2026-01-01T00:00:01Z' })
    .thenThrows(t, ValidationFailed)
})

t.test('a claim whose flag never appeared is taken over once it is abandoned', async (t) => {
  given(claimed(1, '2026-01-01T00:00:00Z')).when({ type: 'ClaimKey', flagId: 2, staleHolder: 1, at: '2026-01-01T00:02:00Z' })
    .then(t, [claimed(2, '2026-01-01T00:02:00Z')])
  given(claimed(1, '2026-01-01T00:00:00Z')).when({ type: 'ClaimKey', flagId: 2, staleHolder: 3, at: '2026-01-01T00:02:00Z' })
    .thenThrows(t, ValidationFailed)
})

t.test('a released key is free; only its holder releases it', async (t) => {
  given(claimed(1, '2026-01-01T00:00:00Z'), released(1, '2026-01-01T00:00:05Z'))
    .when({ type: 'ClaimKey', flagId: 2, staleHolder: null, at: '2026-01-01T00:00:06Z' }).then(t, [claimed(2, '2026-01-01T00:00:06Z')])
  given(claimed(1, '2026-01-01T00:00:00Z')).when({ type: 'ReleaseKey', flagId: 2, at: '2026-01-01T00:00:06Z' }).then(t, [])
})
