import t from 'tap'
import { apiKeyDecider, type ApiKeyCommand, type ApiKeyEvent } from '../../src/accounts/deciders.js'
import { organizationDecider } from '../../src/organizations/decider.js'
import { NotFound } from '../../src/kernel/errors.js'
import { spec } from '../support/given.js'

const created: ApiKeyEvent = {
  type: 'PersonalApiKeyCreated',
  data: { keyId: 'k1', userUuid: 'u1', label: 'l', scopes: ['*'], secureValue: 'sha256$x', maskValue: 'phx_...abcd', at: '2026-01-01T00:00:00Z' },
}
const create: ApiKeyCommand = { type: 'CreateApiKey', data: created.data }
const revoke: ApiKeyCommand = { type: 'RevokeApiKey', data: { keyId: 'k1', at: '2026-01-02T00:00:00Z' } }
const revoked: ApiKeyEvent = { type: 'PersonalApiKeyRevoked', data: revoke.data }
const given = spec(apiKeyDecider)

t.test('creating a key records it', async (t) => { given().when(create).then(t, [created]) })
t.test('creating a key twice records it once', async (t) => { given(created).when(create).then(t, []) })
t.test('revoking an active key records the revocation', async (t) => { given(created).when(revoke).then(t, [revoked]) })
t.test('revoking a revoked key records nothing', async (t) => { given(created, revoked).when(revoke).then(t, []) })
t.test('revoking an unknown key is refused', async (t) => { given().when(revoke).thenThrows(t, NotFound) })

t.test('an organization is created once', async (t) => {
  const data = { organizationId: 'o1', name: 'Acme', at: '2026-01-01T00:00:00Z' }
  spec(organizationDecider)().when({ type: 'CreateOrganization', data }).then(t, [{ type: 'OrganizationCreated', data }])
  spec(organizationDecider)({ type: 'OrganizationCreated', data }).when({ type: 'CreateOrganization', data: { ...data, name: 'Other' } }).then(t, [])
})
