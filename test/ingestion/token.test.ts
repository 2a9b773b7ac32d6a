import t from 'tap'
import { CaptureError } from '../../src/http/capture-error.js'
import { readCaptureRequest } from '../../src/ingestion/payload.js'
import { requestToken } from '../../src/ingestion/token.js'

const tokenOf = (json: unknown): string => requestToken(readCaptureRequest(json))
const refusal = (json: unknown): { status: number; code: string; error: string } => {
  try {
    tokenOf(json)
  } catch (error) {
    if (error instanceof CaptureError) return error.body
    throw error
  }
  throw new Error('no refusal')
}

t.test('the token is read from api_key, token, $token or properties.token', async (t) => {
  t.equal(tokenOf({ event: 'e', api_key: 'phc_a' }), 'phc_a')
  t.equal(tokenOf({ event: 'e', token: 'phc_b' }), 'phc_b')
  t.equal(tokenOf({ event: 'e', $token: 'phc_c' }), 'phc_c')
  t.equal(tokenOf({ event: 'e', properties: { token: 'phc_d' } }), 'phc_d')
  t.equal(tokenOf([{ event: 'e', properties: { token: 'phc_e' } }, { event: 'f' }]), 'phc_e', 'an array agrees on one token')
  t.equal(tokenOf({ api_key: 'phc_batch', batch: [{ event: 'e', token: 'phc_other' }] }), 'phc_batch', 'the batch token wins')
  t.equal(tokenOf({ token: 'phc_batch', batch: [{ event: 'e' }] }), 'phc_batch')
  t.equal(tokenOf({ batch: [{ event: 'e', api_key: 'phc_item' }] }), 'phc_item', 'a batch without its own token uses the events')
  t.equal(tokenOf({ event: 'e', api_key: '  phc_padded\n' }), 'phc_padded', 'surrounding whitespace is trimmed')
})

t.test('no token is a 401, a malformed one a 403, two different ones a 400', async (t) => {
  t.same(refusal({ event: 'e' }), { status: 401, code: 'ingest_key_required', error: 'event submitted without an api_key' })
  t.same(refusal({ event: 'e', api_key: 'phx_personal' }), { status: 403, code: 'ingest_key_unknown', error: 'API key is not valid: personal_api_key' })
  t.same(refusal({ event: 'e', api_key: '   ' }), { status: 403, code: 'ingest_key_unknown', error: 'API key is not valid: empty' })
  t.equal(refusal({ event: 'e', api_key: 'x'.repeat(65) }).error, 'API key is not valid: too_long')
  t.equal(refusal({ event: 'e', api_key: 'phc_é' }).error, 'API key is not valid: not_ascii')
  t.equal(refusal({ event: 'e', api_key: 'phc_a\0b' }).error, 'API key is not valid: null_byte')
  t.same(refusal([{ event: 'e', token: 'phc_1' }, { event: 'e', token: 'phc_2' }]),
    { status: 400, code: 'unroutable_events', error: 'batch submitted with inconsistent api_key values' })
})
