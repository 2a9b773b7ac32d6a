import t from 'tap'
import { spawn } from 'node:child_process'
import { ValidationFailed } from '../../src/kernel/errors.js'
import { KeyClaimNeeded, flagDecider, flagKeyDecider } from '../../src/flags/decider.js'
import { processEnded, processName } from '../../src/kernel/process-identity.js'
import { spec } from '../support/given.js'

const given = spec(flagKeyDecider)
const BY = 'host/1/boot'
const claimed = (flagId: number, at: string, version = 1) => ({ type: 'FlagKeyClaimed' as const, data: { flagId, at, by: BY, version } })
const released = (flagId: number, at: string, below = 2) => ({ type: 'FlagKeyReleased' as const, data: { flagId, at, below } })
const claim = (flagId: number, staleHolder: number | null, at: string, holderEnded = false, version = 1) =>
  ({ type: 'ClaimKey' as const, flagId, staleHolder, holderEnded, by: BY, at, version })
const release = (flagId: number, at: string, below: number) => ({ type: 'ReleaseKey' as const, flagId, at, below })

t.test('a free key is claimed; claiming it again for the same flag records nothing', async (t) => {
  given().when(claim(1, null, '2026-01-01T00:00:00Z')).then(t, [claimed(1, '2026-01-01T00:00:00Z')])
  given(claimed(1, '2026-01-01T00:00:00Z')).when(claim(1, null, '2026-01-01T00:00:01Z')).then(t, [])
})

t.test('a key held by another flag is refused, even when that flag is not written yet', async (t) => {
  given(claimed(1, '2026-01-01T00:00:00Z')).when(claim(2, null, '2026-01-01T00:00:01Z')).thenThrows(t, ValidationFailed)
  given(claimed(1, '2026-01-01T00:00:00Z')).when(claim(2, 1, '2026-01-01T00:00:01Z')).thenThrows(t, ValidationFailed)
})

t.test('a claim whose flag never came to use it is taken over once it is abandoned', async (t) => {
  given(claimed(1, '2026-01-01T00:00:00Z')).when(claim(2, 1, '2026-01-01T00:02:00Z')).then(t, [claimed(2, '2026-01-01T00:02:00Z')])
  given(claimed(1, '2026-01-01T00:00:00Z')).when(claim(2, 3, '2026-01-01T00:02:00Z')).thenThrows(t, ValidationFailed)
})

t.test('a stale claim whose process has ended is taken over at once; a live holder keeps it', async (t) => {
  given(claimed(1, '2026-01-01T00:00:00Z')).when(claim(2, 1, '2026-01-01T00:00:01Z', true)).then(t, [claimed(2, '2026-01-01T00:00:01Z')])
  given(claimed(1, '2026-01-01T00:00:00Z')).when(claim(2, null, '2026-01-01T00:00:01Z', true)).thenThrows(t, ValidationFailed)
})

t.test('a released key is free; only its holder releases it', async (t) => {
  given(claimed(1, '2026-01-01T00:00:00Z'), released(1, '2026-01-01T00:00:05Z')).when(claim(2, null, '2026-01-01T00:00:06Z'))
    .then(t, [claimed(2, '2026-01-01T00:00:06Z')])
  given(claimed(1, '2026-01-01T00:00:00Z')).when(release(2, '2026-01-01T00:00:06Z', 9)).then(t, [])
})

t.test('a flag claims its key again for a later version of itself, and a release gives back only claims for earlier versions', async (t) => {
  given(claimed(1, '2026-01-01T00:00:00Z', 3)).when(claim(1, null, '2026-01-01T00:00:01Z', false, 5))
    .then(t, [claimed(1, '2026-01-01T00:00:01Z', 5)])
  given(claimed(1, '2026-01-01T00:00:00Z', 5)).when(claim(1, null, '2026-01-01T00:00:01Z', false, 4)).then(t, [], 'an older version is covered')
  given(claimed(1, '2026-01-01T00:00:00Z', 5)).when(release(1, '2026-01-01T00:00:01Z', 5))
    .then(t, [], 'a command that saw version 5 leave the key keeps the claim made for version 5')
  given(claimed(1, '2026-01-01T00:00:00Z', 5)).when(release(1, '2026-01-01T00:00:01Z', 6)).then(t, [released(1, '2026-01-01T00:00:01Z', 6)])
  given(claimed(1, '2026-01-01T00:00:00Z', 5), released(1, '2026-01-01T00:00:01Z', 5)).when(claim(2, null, '2026-01-01T00:00:02Z'))
    .thenThrows(t, ValidationFailed)
})

t.test('claims and releases written before versions: a create claims version 1, any other claim none, any release all', async (t) => {
  const older = { type: 'FlagKeyClaimed' as const, data: { flagId: 1, at: '2026-01-01T00:00:00Z' } }
  given(older).when(claim(1, null, '2026-01-01T00:00:01Z', false, 1)).then(t, [claimed(1, '2026-01-01T00:00:01Z', 1)])
  given(older).when(release(1, '2026-01-01T00:00:01Z', 1)).then(t, [released(1, '2026-01-01T00:00:01Z', 1)])
  const creating = { type: 'FlagKeyClaimed' as const, data: { flagId: 1, at: '2026-01-01T00:00:00Z', creating: {} as never } }
  given(creating).when(claim(1, null, '2026-01-01T00:00:01Z', false, 1)).then(t, [])
  given(creating).when(release(1, '2026-01-01T00:00:01Z', 1)).then(t, [])
  given(older, { type: 'FlagKeyReleased' as const, data: { flagId: 1, at: '2026-01-01T00:00:01Z' } })
    .when(claim(2, null, '2026-01-01T00:00:02Z')).then(t, [claimed(2, '2026-01-01T00:00:02Z')])
})

t.test('a process is known to have ended only on this host: this one runs, an earlier boot of its pid does not', async (t) => {
  const [host, pid] = processName().split('/')
  t.equal(processEnded(processName()), false)
  t.equal(processEnded(`${host}/${pid}/an-earlier-boot`), true)
  t.equal(processEnded(`another-host/${pid}/boot`), false, 'nothing is known of other hosts')
  t.equal(processEnded(`${host}/${process.ppid}/boot`), false, 'a running pid')
  t.equal(processEnded('garbage'), false)
})

t.test('a process of this host that has exited is known to have ended', async (t) => {
  const child = spawn(process.execPath, ['-e', ''])
  await new Promise((resolve) => child.once('exit', resolve))
  const [host] = processName().split('/')
  t.equal(processEnded(`${host}/${child.pid}/boot`), true)
})

const flagGiven = spec(flagDecider)
const created = {
  type: 'FeatureFlagCreated' as const,
  data: {
    key: 'beta', name: '', filters: {}, active: true, ensure_experience_continuity: false, tags: [],
    flagId: 1, environmentId: 1, createdBy: 'u', at: '2026-01-01T00:00:00Z',
  },
}
const deletedFlag = { type: 'FeatureFlagDeleted' as const, data: { modifiedBy: 'u', at: '2026-01-01T00:00:01Z' } }
const update = (changes: object, deleted: boolean | undefined, claimed: { key: string; version: number } | null) =>
  ({ type: 'UpdateFlag' as const, changes, deleted, actor: 'u', at: '2026-01-01T00:00:02Z', claimed })

t.test('an update that leaves a flag live under a key it was not live under needs a claim made for the version it lands on', async (t) => {
  const needs = (run: () => unknown, key: string, version: number) => {
    try {
      run()
      t.fail('no claim was asked for')
    } catch (error) {
      t.ok(error instanceof KeyClaimNeeded)
      t.match(error, { key, version })
    }
  }
  needs(() => flagDecider.decide(update({}, false, null), [created, deletedFlag].reduce(flagDecider.evolve, null)), 'beta', 2)
  needs(() => flagDecider.decide(update({}, false, { key: 'beta', version: 1 }), [created, deletedFlag].reduce(flagDecider.evolve, null)), 'beta', 2)
  needs(() => flagDecider.decide(update({ key: 'gamma' }, undefined, { key: 'beta', version: 1 }), flagDecider.evolve(null, created)), 'gamma', 1)
  flagGiven(created, deletedFlag).when(update({}, false, { key: 'beta', version: 2 }))
    .then(t, [{ type: 'FeatureFlagRestored', data: { modifiedBy: 'u', at: '2026-01-01T00:00:02Z' } }])
  flagGiven(created).when(update({ key: 'beta', name: 'n' }, undefined, null))
    .then(t, [{ type: 'FeatureFlagUpdated', data: { changes: { name: 'n' }, modifiedBy: 'u', at: '2026-01-01T00:00:02Z' } }], 'its own key needs none')
  flagGiven(created).when(update({ key: 'gamma' }, true, null))
    .then(t, [
      { type: 'FeatureFlagUpdated', data: { changes: { key: 'gamma' }, modifiedBy: 'u', at: '2026-01-01T00:00:02Z' } },
      { type: 'FeatureFlagDeleted', data: { modifiedBy: 'u', at: '2026-01-01T00:00:02Z' } },
    ], 'nor a flag deleted as it is renamed')
})
