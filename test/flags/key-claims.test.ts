import t from 'tap'
import { spawn } from 'node:child_process'
import { ValidationFailed } from '../../src/kernel/errors.js'
import { flagKeyDecider } from '../../src/flags/decider.js'
import { processEnded, processName } from '../../src/kernel/process-identity.js'
import { spec } from '../support/given.js'

const given = spec(flagKeyDecider)
const BY = 'host/1/boot'
const claimed = (flagId: number, at: string) => ({ type: 'FlagKeyClaimed' as const, data: { flagId, at, by: BY } })
const released = (flagId: number, at: string) => ({ type: 'FlagKeyReleased' as const, data: { flagId, at } })
const claim = (flagId: number, staleHolder: number | null, at: string, holderEnded = false) =>
  ({ type: 'ClaimKey' as const, flagId, staleHolder, holderEnded, by: BY, at })

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
  given(claimed(1, '2026-01-01T00:00:00Z')).when({ type: 'ReleaseKey', flagId: 2, at: '2026-01-01T00:00:06Z' }).then(t, [])
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
